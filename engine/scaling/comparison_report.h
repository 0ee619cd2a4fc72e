#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "scaling/scaling_comparison.h"
#include "scaling/speedup_gap.h"

namespace dp {

// What dp-train --compare measured, for scripts: the speedup table's rows
// and, for each N-device run, where its time went (scaling/speedup_gap.h).
// One JSON object (format version 1):
//   {"format": "dp-train comparison report", "version": 1,
//    "runs": [{"devices", "global_batch", "lr", "seconds_per_epoch" (the steady epochs'
//              median), "seconds_per_epoch_min", "seconds_per_epoch_max", "speedup",
//              "efficiency", "final_test_acc", "parameter_drift"}, ...],
//    "speedup_gaps": [{"devices", "measured", "ideal", "gap",
//                      "parts": [{"name", "seconds", "share", "advice"}, ...],
//                      "verdict"}, ...]}
// Seconds are per epoch; a part's share is its fraction of the gap (the
// parts add up to the gap, the shares to 1); a drift not measured is null.
// The gaps' texts are written as given: the caller renders the settings
// they name (core/setting_ref.h) first.
std::string comparison_report_json(const std::vector<ComparisonRow>& rows,
                                   const std::vector<SpeedupGap>& gaps);

// Writes comparison_report_json atomically (io/atomic_file.h). Throws dp::Error.
void write_comparison_report(const std::filesystem::path& file,
                             const std::vector<ComparisonRow>& rows,
                             const std::vector<SpeedupGap>& gaps);

}  // namespace dp
