#pragma once

#include <cstdint>
#include <string>
#include <vector>

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
// code units: the runs table's name column). Import and rename alike.
inline constexpr int kMaxRunNameLength = 200;
// The longest epoch a record may say it took: a year of seconds (a real
// epoch takes hours at most; a laptop asleep mid-epoch, days).
inline constexpr double kMaxEpochSeconds = 365.0 * 24 * 3600;
// The most cores one machine has (Linux's largest NR_CPUS): what a record's
// other_cores and usable_cores stay within.
inline constexpr int kMaxMachineCores = 8192;
// The most steps a record may count: a thousand years at 30 steps a second.
inline constexpr std::int64_t kMaxRecordSteps = 1'000'000'000'000;

// The most per-batch loss points a record may hold: four times what a
// BatchLossTrace keeps, for traces kept by a build with a finer one.
inline constexpr int kMaxRecordBatchLosses = 4 * (2 * BatchLossTrace::kRecordPoints + 1);

// The longest notes on a run, and the most tags and longest tag, in
// characters as the workbench counts them (UTF-16 code units).
inline constexpr int kMaxRunNotesLength = 10000;
inline constexpr int kMaxRunTags = 64;
inline constexpr int kMaxRunTagLength = 64;

// Why `notes` or `tags` (UTF-8) cannot be a run's, worded to follow their
// name ("holds 70 tags; ..."); empty when they can. Notes may span lines; a
// tag is one line without commas (the runs table lists them comma-separated),
// and neither holds a bidirectional control character.
std::string run_notes_problem(const std::string& notes);
std::string run_tags_problem(const std::vector<std::string>& tags);

// Why `name` (UTF-8) cannot be a run's name, worded to follow the name
// ("is 300 characters long; a run's name takes at most 200"); empty when it
// can. A name is at most kMaxRunNameLength characters on one line, and holds
// no bidirectional control character (U+202E and its kin reorder how the
// text after them reads: "exe.txt" shown for "txt.exe"), which File > Import
// and renaming in the runs table refuse alike.
std::string run_name_problem(const std::string& name);

// Whether `text` is a UTC time as a run record writes it,
// "2026-11-22T01:30:00Z", and a real one (a day its month has, 00:00:00 to
// 23:59:60), from 1970 on.
bool is_record_time(const std::string& text);

// Throws dp::Error with one line naming the first field out of range and
// its value ("\"epochs[2].test_acc\" must be between 0 and 1 (got 5)").
void check_recorded_run(const RunRecord& record);

}  // namespace dp
