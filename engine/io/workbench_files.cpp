#include "io/workbench_files.h"

#include <cstdlib>

namespace dp {
namespace {

std::filesystem::path from_environment(const char* name) {
    const char* value = std::getenv(name);
    return value && *value ? value : "";
}

}  // namespace

std::filesystem::path workbench_data_folder() {
    if (auto dir = from_environment("DP_WORKBENCH_DATA_DIR"); !dir.empty()) return dir;
    std::filesystem::path data = from_environment("XDG_DATA_HOME");
    if (data.empty()) data = from_environment("HOME") / ".local" / "share";
    return data / "DP Workbench" / "DP Workbench";
}

std::filesystem::path history_database_path() { return workbench_data_folder() / "runs.sqlite"; }

}  // namespace dp
