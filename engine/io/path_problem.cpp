#include "io/path_problem.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <system_error>

namespace dp {
namespace {

std::string quoted(const std::filesystem::path& path) {
    std::string text = path.string();
    text.insert(text.begin(), '\'');
    text.push_back('\'');
    return text;
}

// The first prefix of `path` that is a symbolic link leading nowhere, if any.
std::optional<std::filesystem::path> dangling_link(const std::filesystem::path& path) {
    std::filesystem::path prefix;
    for (const auto& part : path) {
        prefix /= part;
        struct stat link {}, target {};
        if (::lstat(prefix.c_str(), &link) != 0) return std::nullopt;
        if (S_ISLNK(link.st_mode) && ::stat(prefix.c_str(), &target) != 0 && errno == ENOENT)
            return prefix;
    }
    return std::nullopt;
}

// The first part of `path` that is not a folder though more follows it.
std::optional<std::filesystem::path> file_in_the_way(const std::filesystem::path& path) {
    std::filesystem::path prefix;
    for (auto part = path.begin(); part != path.end(); ++part) {
        prefix /= *part;
        struct stat status {};
        if (std::next(part) != path.end() && ::stat(prefix.c_str(), &status) == 0 &&
            !S_ISDIR(status.st_mode))
            return prefix;
    }
    return std::nullopt;
}

}  // namespace

std::optional<PathProblem> path_problem(const std::filesystem::path& path) {
    struct stat status {};
    if (::stat(path.c_str(), &status) == 0) return std::nullopt;
    const int code = errno;
    switch (code) {
    case ENAMETOOLONG:
        for (const auto& part : path)
            if (part.native().size() > NAME_MAX)
                return PathProblem{false, "a name in the path is " + std::to_string(part.native().size()) +
                                              " bytes, over the " + std::to_string(NAME_MAX) +
                                              " a file system allows: shorten it"};
        return PathProblem{false, "the path is " + std::to_string(path.native().size()) +
                                      " bytes, over the " + std::to_string(PATH_MAX) +
                                      " the system allows: shorten it"};
    case ELOOP:
        return PathProblem{false, "its symbolic links loop (a link leads back to itself): fix or remove the link"};
    case ENOTDIR:
        if (const auto file = file_in_the_way(path))
            return PathProblem{false, quoted(*file) + " is a file, not a folder: fix the path"};
        break;
    case ENOENT:
        if (const auto link = dangling_link(path)) {
            std::error_code error;
            const auto target = std::filesystem::read_symlink(*link, error);
            return PathProblem{false, (*link == path ? std::string("is") : quoted(*link) + " is") +
                                          " a symbolic link to " + quoted(target) +
                                          ", which does not exist: fix or remove the link"};
        }
        return PathProblem{true, "file not found"};
    case EACCES:
        return PathProblem{false, "permission denied: make it readable, or give another path"};
    default:
        break;
    }
    return PathProblem{false, "cannot access: " + std::error_code(code, std::generic_category()).message()};
}

}  // namespace dp
