#pragma once

#include <filesystem>

namespace dp {

// The folder where dp-train and the workbench keep their own files (the run
// history, the kernel cache): $DP_WORKBENCH_DATA_DIR, else the user's data
// folder ($XDG_DATA_HOME if absolute, else ~/.local/share, with ~ from the
// password database when HOME is unset), then "DP Workbench/DP Workbench",
// as Qt's AppDataLocation names it. Throws dp::Error naming the fix when
// there is no home folder at all.
std::filesystem::path workbench_data_folder();

// The run history's SQLite database in that folder (records/run_history.h
// opens this file, RunHistory::defaultPath()).
std::filesystem::path history_database_path();

}  // namespace dp
