#pragma once

#include <QString>
#include <QTemporaryDir>

#include <memory>

// The workbench's scratch folders in TMPDIR (a comparison's parameter
// snapshots), named "dp-workbench-<pid>-XXXXXX" so that the folders of a
// workbench that was killed, and so never removed its own, can be told from
// a running one's and removed by the next launch.
std::unique_ptr<QTemporaryDir> newScratchFolder();

// Removes the scratch folders in `folder` (TMPDIR by default) whose
// workbench process is gone; a live process's are kept. The count removed.
int removeScratchOfDeadWorkbenches(const QString& folder = {});
