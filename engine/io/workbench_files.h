#pragma once

#include <filesystem>

namespace dp {

// The folder where dp-train and the workbench keep their own files (the run
// history, the kernel cache): $DP_WORKBENCH_DATA_DIR, else the workbench's
// user data folder ($XDG_DATA_HOME or ~/.local/share, then
// "DP Workbench/DP Workbench", as Qt's AppDataLocation names it).
std::filesystem::path workbench_data_folder();

// The run history's SQLite database in that folder (records/run_history.h
// opens the same file).
std::filesystem::path history_database_path();

}  // namespace dp
