#pragma once

#include <string>
#include <vector>

#include "scaling/scaling_predictor.h"

namespace dp {

// What the prediction is checked against: a device count and global batch
// that ran, and its seconds per epoch (dp-train: the median of its steady
// epochs, and of its repeats).
struct MeasuredPoint {
    int devices = 0;
    int global_batch = 0;
    double seconds_per_epoch = 0;
};

// The link a prediction on N devices uses: for this machine's threads, the
// probe at the nearest device count (links[i] was measured on counts[i]);
// for a preset, the one link.
struct LinkChoice {
    std::vector<int> counts;  // ascending; empty: `links` holds one link for every count
    std::vector<LinkModel> links;
    const LinkModel& at(int devices) const;
};

// dp-train --predict's table for one link: each of prediction_device_counts()
// and the measured counts, with strong and weak scaling's predicted sec/epoch
// and speedup; a measured point sits beside the scaling it ran (strong at the
// profile's global batch, weak at its per-device batch times N) with its
// error, (predicted - measured) / measured.
std::string format_prediction_table(const WorkloadProfile& profile, AllReduceStrategy algorithm,
                                     const LinkChoice& link, const CoreSharing& sharing,
                                     const std::vector<MeasuredPoint>& measured);

}  // namespace dp
