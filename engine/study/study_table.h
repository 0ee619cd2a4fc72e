#pragma once

#include <string>
#include <vector>

#include "record/run_record.h"
#include "scaling/scaling_comparison.h"

namespace dp {

// One row of a study's table: one grid point (devices x batch size x lr),
// summed up over its repeats.
struct StudyRow {
    int devices = 0;
    int batch_size = 0;
    float lr = 0;
    int repeats = 0;  // the finished runs the row is of
    // Seconds per epoch: the median of every repeat's steady epochs (after
    // the first, record/run_metrics.h: EpochTime), with their range.
    double seconds_per_epoch = 0, seconds_min = 0, seconds_max = 0;
    // Throughput over the baseline's, the run of the fewest devices of the
    // same batch size and lr (1 device where the grid has it): the median
    // over repeats with their range, or for one repeat the range its steady
    // epochs allow (scaling/scaling_comparison.h: repeated_speedups). NaN
    // where the cell has no baseline run.
    double speedup = 0, speedup_min = 0, speedup_max = 0;
    int baseline_devices = 0;
    double efficiency = 0;  // speedup / (devices / baseline_devices)
    double final_test_acc = 0;  // the median over repeats
    bool busy = false;          // some repeat was measured while the machine was busy
    SpeedupVerdict verdict() const { return speedup_verdict(speedup_min, speedup_max); }
};

// Whether the row is its cell's baseline (its speedup is 1 by definition, no verdict).
inline bool is_baseline(const StudyRow& row) { return row.devices == row.baseline_devices; }

// The table of a study's finished runs: one row per (batch size, lr, device
// count), cells in the order their first run appears, device counts
// ascending within a cell. A point's repeats are its runs in order; the
// baseline of repeat r is the baseline count's run r (repeats alternate
// counts, so each pair ran close in time). Runs that did not finish are left out.
std::vector<StudyRow> study_table(const std::vector<RunRecord>& records);

// The table as dp-train prints it: a header line, one line per row.
std::string format_study_table(const std::vector<StudyRow>& rows);

// The table as CSV: a header row of column names, one row per grid point,
// numbers with a '.' whatever the locale, an unknown number empty.
std::string study_table_csv(const std::vector<StudyRow>& rows);

}  // namespace dp
