#pragma once

#include <QByteArray>
#include <QJsonArray>
#include <QString>

#include <vector>

#include "record/run_record.h"

// Reads the JSON that dp::to_json writes (dp-train --record, and rank 0 of a
// cluster run), so that a run recorded elsewhere joins the workbench's
// history. Anything that is not a version 1 run record with every field of
// the right type is rejected with a one-line dp::Error. The record's "label"
// is not read: RunRecord::label() derives it.
dp::RunRecord runRecordFromJson(const QByteArray& json);

// runRecordFromJson of a file's contents; the error names the file.
dp::RunRecord readRunRecord(const QString& path);

// A record's "step_totals" (dp::step_totals_json: one object per device with
// every field of record/step_timing_fields.h, none negative), as the record
// reader and the history read it. `path` names the array in the one-line
// dp::Error ("step_totals[1].forward is missing").
std::vector<dp::DeviceStepTiming> stepTotalsFromJson(const QJsonArray& totals, const QString& path);
