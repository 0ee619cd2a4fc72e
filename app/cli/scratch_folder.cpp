#include "cli/scratch_folder.h"

#include <unistd.h>

#include <cstdlib>
#include <system_error>

#include "core/error.h"

namespace dp {

ScratchFolder::ScratchFolder(const std::string& prefix) {
    // $TMPDIR as POSIX reads it: unset or empty means /tmp.
    const char* tmpdir = std::getenv("TMPDIR");
    const bool from_environment = tmpdir && *tmpdir;
    const std::filesystem::path folder = from_environment ? tmpdir : "/tmp";
    const std::string named = from_environment ? "TMPDIR (" + folder.string() + ")" : folder.string();
    const std::string fix = ": set TMPDIR to a folder you can write, or unset it";
    std::error_code error;
    if (!std::filesystem::is_directory(folder, error))
        throw Error(named + " is not a folder" + (error ? " (" + error.message() + ")" : "") + fix);
    path_ = std::filesystem::absolute(folder, error) / (prefix + "-" + std::to_string(::getpid()));
    std::filesystem::create_directories(path_, error);
    if (error)
        throw Error(named + ": cannot create " + path_.string() + " (" + error.message() + ")" + fix);
}

ScratchFolder::~ScratchFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
}

}  // namespace dp
