#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace dp {

// Why a path cannot be reached, in words a user can act on. stat()'s errno
// alone misleads: a name over 255 bytes, a link to nothing and a loop of
// links all come back as "not found" or "not a directory" from
// std::filesystem, and "install the data set" is then the wrong advice.
struct PathProblem {
    // Nothing is there and no link is involved: the caller's own hint
    // ("install dataset-fashion-mnist, or give --data-dir") is the fix.
    bool missing = false;
    std::string text;  // "file not found", "is a symbolic link to 'x', which does not exist: ..."
};

// None when stat() of `path` succeeds.
std::optional<PathProblem> path_problem(const std::filesystem::path& path);

}  // namespace dp
