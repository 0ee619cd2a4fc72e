#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "scaling/scaling_comparison.h"
#include "scaling/speedup_gap.h"

namespace dp {

// What dp-train --compare measured, for scripts: every repeat's rows, the
// speedups it printed (their medians and ranges) and, for each N-device run
// of the last repeat, where its time went (scaling/speedup_gap.h).
// One JSON object (format version 2):
//   {"format": "dp-train comparison report", "version": 2, "statistic": "...",
//    "speedups": [{"devices", "median", "min", "max", "repeats", "range_from", "verdict"}, ...],
//    "repeats": [{"repeat", "runs": [RUN, ...]}, ...],
//    "runs": [RUN, ...] (the last repeat's, as version 1 had them),
//    "speedup_gaps": [{"devices", "measured", "ideal", "gap", "noise", "lost",
//                      "parts": [{"name", "seconds", "share", "within_noise", "advice"}, ...],
//                      "verdict"}, ...]}
// RUN: {"devices", "global_batch", "lr", "seconds_per_epoch" (the steady
// epochs' median), "seconds_per_epoch_min", "seconds_per_epoch_max",
// "speedup", "speedup_min", "speedup_max" (from the steady epochs' ranges),
// "efficiency", "final_test_acc", "parameter_drift", "load": {"other_cores",
// "load_average", "cores", "busy"} or null where not measured}.
// "speedups" are what dp-train prints (format_repeated_speedups): each N's
// median and range over the repeats, or, for one repeat, that run's range
// from its steady epochs ("range_from" says which), and the verdict word
// the range earns (speedup_verdict).
// Seconds are per epoch; the parts add up to the gap; a part's share is its
// fraction of the time lost (SpeedupGap::share: the shares add up to 1, and
// "lost" is the gap unless some part saved time, which has share 0); the
// parts within the noise are pooled into one (SpeedupGap::separate_noise)
// marked "within_noise"; a drift not measured is null.
// The gaps' texts are written as given: the caller renders the settings
// they name (core/setting_ref.h) first.
std::string comparison_report_json(const std::vector<std::vector<ComparisonRow>>& repeats,
                                   const std::vector<SpeedupGap>& gaps);

// Writes comparison_report_json atomically (io/atomic_file.h). Throws dp::Error.
void write_comparison_report(const std::filesystem::path& file,
                             const std::vector<std::vector<ComparisonRow>>& repeats,
                             const std::vector<SpeedupGap>& gaps);

}  // namespace dp
