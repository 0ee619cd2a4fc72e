#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "record/run_record.h"
#include "study/study_plan.h"
#include "study/study_table.h"

namespace dp {

// A study as a file keeps it: what was planned and every run's record. Its
// table is worked out from the records (study_table), so a study gathered
// from the records of a Slurm job array's tasks reads like one run in one
// process.
struct Study {
    StudyKind kind = StudyKind::sweep;
    std::string grid;  // a sweep's, as sweep_grid_text writes it; "" for other kinds
    int repeats = 1;
    std::vector<RunRecord> runs;

    std::vector<StudyRow> table() const { return study_table(runs); }
};

// The study `plan` is, with the records of the runs it has trained so far
// (none before it starts; a study that ended early keeps those that ran).
Study study_of(const StudyPlan& plan, std::vector<RunRecord> runs = {});

// The study as one JSON object (format version 1):
//   {"format": "dp-train study", "version": 1, "kind": "sweep", "grid":
//    "devices=1,2 batch-size=64,256", "repeats": 2,
//    "table": [ROW, ...], "runs": [RUN RECORD, ...]}
// ROW: {"devices", "batch_size", "lr", "repeats", "seconds_per_epoch",
// "seconds_per_epoch_min", "seconds_per_epoch_max", "speedup", "speedup_min",
// "speedup_max", "verdict", "baseline_devices", "efficiency",
// "final_test_acc", "busy"}, written for scripts (a number not known is
// null); RUN RECORD as record/run_record_json.h writes one.
std::string study_json(const Study& study);

// The studies a Slurm job array's tasks wrote (each one point of one sweep:
// dp-train --sweep ... --sweep-index I) as one study, their runs in the
// order given, each (batch size, lr) cell's runs one comparison group (the
// cell's first run's). Throws dp::Error, naming the part, unless every part
// is a sweep of the same grid and repeats.
Study gather_studies(const std::vector<Study>& parts);

// Writes study_json atomically (io/atomic_file.h). Throws dp::Error.
void write_study(const std::filesystem::path& file, const Study& study);

// Reads what study_json writes: every member checked, each run record by
// the run record's reader; the table is not read but worked out again.
// Anything else is refused with one line: "not a valid study: ...".
Study study_from_json(std::string_view json);
// study_from_json of a file (a regular file of at most kMaxStudyBytes); the
// error names the file.
Study read_study(const std::filesystem::path& file);
inline constexpr std::uint64_t kMaxStudyBytes = std::uint64_t(256) << 20;

// Whether `file` is a study by its "format" member: how an import tells a
// study from a run record. False for anything that cannot be read as JSON.
bool is_study_file(const std::filesystem::path& file);

// Where a study is kept unless the user names a file: "studies/" in the
// workbench's data folder (io/workbench_files.h), beside the run history,
// named by the time it started: "study-2026-11-29T08-30-00Z-1234.json".
// The folder is created. Throws dp::Error naming the fix.
std::filesystem::path new_study_path();

}  // namespace dp
