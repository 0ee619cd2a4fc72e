#pragma once

#include <string>

#include "record/run_metrics.h"
#include "scaling/scaling_predictor.h"

namespace dp {

// A measured speedup beside the band the Scaling tab draws at its device
// count: the speedups predicted over each of the thread link's probes.
struct BandCheck {
    int devices = 0;
    // Measured: the median and the range the steady epochs allow
    // (ComparisonRow::speedup_min/max); a range of 0-0 is the median alone.
    double speedup = 0, speedup_min = 0, speedup_max = 0;
    double band_low = 0, band_high = 0;  // predicted, lowest to highest
};

// What the runs' own numbers say about why a measurement could miss the band.
struct BandEvidence {
    // The cores other processes kept busy while the N-device run and while
    // its baseline trained (RunRecord::other_cores: -1, not measured), and
    // whether that made each busy (RunRecord::busy).
    double other_cores = -1, baseline_other_cores = -1;
    bool busy = false, baseline_busy = false;
    int usable_cores = 0;  // the N-device run's (0: not known)
    // The fewer of the two runs' steady epochs (EpochTime::steady_epochs).
    int steady_epochs = 0;
    // Seconds per epoch, measured and predicted at the run's device count
    // (add_phase_evidence); 0 where not known (a record without step timings).
    double compute = 0, predicted_compute = 0;
    double communication = 0, predicted_communication = 0;
};

// Steady epochs fewer than this give a range too narrow to go by: one
// steady epoch has no spread at all.
inline constexpr int kSteadyEpochsToTrust = 3;

// Puts `run`'s phases per epoch into `evidence` beside `predicted`'s (the
// prediction at its device count): the compute of its slowest device
// (forward and backward), and the least any device waited for the
// all-reduce, DataParallel's gather and broadcast with it (the device that
// arrived last waited only for the communication). Nothing without step timings.
void add_phase_evidence(BandEvidence& evidence, const RunSummary& run, const PredictedPoint& predicted);

// One sentence when the measured range lies wholly outside the band: which
// way it falls, and the likeliest reason the runs' own numbers give, first
// found of: the machine busy (the N-device run's below the band, the
// baseline's above it), fewer steady epochs than kSteadyEpochsToTrust,
// compute or communication far from the prediction's (the one further in
// seconds). Empty when the range overlaps the band, without a band, and at
// 1 device (where the band is 1x by definition).
// "2 devices: measured 0.89x (0.85-0.93), below the predicted 1.18-1.63x, likely because ..."
std::string band_miss_comment(const BandCheck& check, const BandEvidence& evidence);

}  // namespace dp
