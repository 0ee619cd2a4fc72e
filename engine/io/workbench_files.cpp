#include "io/workbench_files.h"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "core/error.h"

namespace dp {
namespace {

std::filesystem::path from_environment(const char* name) {
    const char* value = std::getenv(name);
    return value && *value ? value : "";
}

// $HOME, else the user's home in the password database: a service, cron or
// `env -i` may leave HOME unset, and an empty HOME made the data folder
// "/.local/share/...", at the top of the file system.
std::filesystem::path home_folder() {
    if (auto home = from_environment("HOME"); !home.empty()) return home;
    const uid_t user = ::getuid();
    std::vector<char> buffer(16384);
    passwd entry{};
    passwd* found = nullptr;
    if (::getpwuid_r(user, &entry, buffer.data(), buffer.size(), &found) == 0 && found && found->pw_dir &&
        found->pw_dir[0] == '/')
        return found->pw_dir;
    throw Error("no folder for the run history and the kernel cache: HOME is unset and the password "
                "database has no home for user " + std::to_string(user) +
                ": set HOME, or DP_WORKBENCH_DATA_DIR to a folder you can write");
}

}  // namespace

std::filesystem::path workbench_data_folder() {
    if (auto dir = from_environment("DP_WORKBENCH_DATA_DIR"); !dir.empty()) return dir;
    // The XDG spec (and Qt) ignore a relative XDG_DATA_HOME.
    std::filesystem::path data = from_environment("XDG_DATA_HOME");
    if (!data.is_absolute()) data = home_folder() / ".local" / "share";
    return data / "DP Workbench" / "DP Workbench";
}

std::filesystem::path history_database_path() { return workbench_data_folder() / "runs.sqlite"; }

}  // namespace dp
