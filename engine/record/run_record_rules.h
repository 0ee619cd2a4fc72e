#pragma once

#include <cstdint>

#include "record/run_record.h"

namespace dp {

// What a run record from outside (File > Import, dp-workbench --import) must
// satisfy before it joins the history: the settings by dp-train's own rules
// (dp::validate_settings: known model and data set, every number in its
// range), and the record's own fields within what a run can have written.
// The caps keep a hostile or damaged file from freezing the window (a 5 MB
// name, 450,000 epochs) while leaving every real record far inside them.

// The most bytes a run record file may hold: 10,000 epochs take about 2 MB.
inline constexpr std::int64_t kMaxRunRecordBytes = std::int64_t(16) << 20;
// The most epochs a record may list.
inline constexpr int kMaxRecordEpochs = 10000;
// The most devices (one per rank in an mpirun record) a record may list.
inline constexpr int kMaxRecordDevices = 4096;
// The longest run name, in characters as the workbench counts them (UTF-16
// code units: the runs table's name column).
inline constexpr int kMaxRunNameLength = 200;

// Throws dp::Error with one line naming the first field out of range and
// its value ("\"epochs[2].test_acc\" must be between 0 and 1 (got 5)").
void check_recorded_run(const RunRecord& record);

}  // namespace dp
