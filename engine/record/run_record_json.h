#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "record/run_record.h"

namespace dp {

// The run record's JSON, written and read here only: dp-train --record and
// rank 0 of a cluster run write it, the workbench imports it into its
// history (File > Import, dp-workbench --import), and the history keeps
// "step_totals" in the same form. One writer and one reader, so that what
// one writes the other reads.

// The JSON text of a record (format version 1, documented in run_record_json.cpp).
std::string to_json(const RunRecord& record);

// Writes to_json(record) to `file` atomically (temporary file, then rename),
// so a crash mid-write leaves the previous record. Throws dp::Error.
void write_run_record(const std::filesystem::path& file, const RunRecord& record);

// Reads what to_json writes. Anything that is not a version 1 run record with
// every field of the right type, within what a run can have written
// (record/run_record_rules.h), is refused with a one-line dp::Error:
// "not a valid run record: \"epochs[2].test_acc\" is not a number". Members
// the reader does not know are skipped; the record's "label" is not read
// (RunRecord::label() derives it).
RunRecord run_record_from_json(std::string_view json);

// run_record_from_json of a file's contents, read as every input is
// (io/bounded_file.h: a regular file of at most kMaxRunRecordBytes); the
// error names the file. A record the file left running comes back
// interrupted: no process here carries that run on.
RunRecord read_run_record(const std::filesystem::path& file);

// A record's "step_totals" (step_totals_json: one object per device with
// every field of record/step_timing_fields.h, none negative), as the record
// reader and the history read it. `path` names the array in the one-line
// dp::Error ("step_totals[1].forward is missing").
std::vector<DeviceStepTiming> step_totals_from_json(std::string_view json_array, const std::string& path);

}  // namespace dp
