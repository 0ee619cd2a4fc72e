#include "cli/scratch_folder.h"

#include <unistd.h>

#include <cstdlib>
#include <system_error>

#include "core/error.h"

namespace dp {

ScratchFolder::ScratchFolder(const std::string& prefix) {
    const char* tmpdir = std::getenv("TMPDIR");
    const std::string named = tmpdir && *tmpdir ? "TMPDIR (" + std::string(tmpdir) + ")"
                                                : std::string("the temporary folder");
    std::error_code error;
    const std::filesystem::path folder = std::filesystem::temp_directory_path(error);
    if (error)
        throw Error(named + " is not a folder (" + error.message() +
                    "): set TMPDIR to a folder you can write, or unset it");
    path_ = folder / (prefix + "-" + std::to_string(::getpid()));
    std::filesystem::create_directories(path_, error);
    if (error)
        throw Error(named + ": cannot create " + path_.string() + " (" + error.message() +
                    "): set TMPDIR to a folder you can write, or unset it");
}

ScratchFolder::~ScratchFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
}

}  // namespace dp
