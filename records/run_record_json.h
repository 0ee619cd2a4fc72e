#pragma once

#include <QByteArray>
#include <QString>

#include "train/run_record.h"

// Reads the JSON that dp::to_json writes (dp-train --record, and rank 0 of a
// cluster run), so that a run recorded elsewhere joins the workbench's
// history. Anything that is not a version 1 run record with every field of
// the right type is rejected with a one-line dp::Error. The record's "label"
// is not read: RunRecord::label() derives it.
dp::RunRecord runRecordFromJson(const QByteArray& json);

// runRecordFromJson of a file's contents; the error names the file.
dp::RunRecord readRunRecord(const QString& path);
