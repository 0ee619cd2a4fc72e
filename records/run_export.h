#pragma once

#include <QByteArray>

#include <vector>

#include "record/run_record.h"

// Exports of the runs table and of the per-epoch metrics, for spreadsheets
// and scripts. CSV follows RFC 4180 (CRLF lines, fields with commas, quotes
// or line breaks quoted) after a UTF-8 byte-order mark, so that spreadsheets
// read the labels' "·" and "×" as such; CSV headers and JSON keys are the
// same snake_case names. Numbers are written in their shortest exact form.
//
// One row (CSV) or object (JSON array) per run: id, label; then every setting
// a user gives (each field of config/config_fields.h with a dp-train flag,
// under its field name and in its order: model, batch_size, lr, epochs (the
// planned ones), warmup_epochs, seed, dataset, ..., limit_train, limit_test,
// ..., devices, allreduce, ...); then device_count, processes, epochs_done,
// seconds_per_epoch (the median of the epochs after the first) with its
// _min and _max, busy (measured while other processes took cores),
// final_test_acc, baseline_id, scaling (strong or weak), speedup,
// efficiency, repeats with speedup_median, _min and _max (a repeated
// comparison's), target_test_acc, seconds_to_target, speedup_to_target,
// status; the JSON adds steps and step_totals (the run's step timings, as
// its record has them). Speedup and efficiency are against the baseline
// compareRuns finds in `runs` (`chosenBaseline`: the user's pick, as the
// runs table has it); values that do not exist are
// empty (CSV) or null (JSON), as are settings that mean nothing for the run
// (input_size and samples but for the random data set, data_dir for it).
// The CSV leaves out the columns empty for every run it lists.
// A setting's CSV cell is its text as dp-train's flag takes it (booleans
// true / false, lists comma-separated); in JSON it is typed, except that a
// seed past 2^63 - 1, beyond Qt's JSON integers, is its decimal string.
QByteArray runsToCsv(const std::vector<dp::RunRecord>& runs, double targetAccuracy = 0.8,
                     const std::string& chosenBaseline = {});
QByteArray runsToJson(const std::vector<dp::RunRecord>& runs, double targetAccuracy = 0.8,
                      const std::string& chosenBaseline = {});

// One row per completed epoch of every run: run_id, label, epoch, train_loss,
// train_acc, test_acc, seconds, cumulative_seconds.
QByteArray epochsToCsv(const std::vector<dp::RunRecord>& runs);
