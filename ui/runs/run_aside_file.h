#pragma once

#include <QString>
#include <QStringList>

#include "record/run_record.h"

// Where a run goes that the history could not keep (a full disk, a damaged
// or read-only database): its run record JSON, which File > Import (or
// dp-workbench --import) adds to the history later. Written into the first
// of `folders` that takes it, so a full data folder falls back to another.
// Returns the file's path, or an empty string with each folder's failure in
// `problem`.
QString writeRunAside(const dp::RunRecord& record, const QStringList& folders, QString* problem);

// The folders writeRunAside tries, in order: the history's own (beside
// `historyPath`), the user's home folder, the temporary folder.
QStringList runAsideFolders(const QString& historyPath);
