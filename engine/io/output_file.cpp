#include "io/output_file.h"

#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <iterator>
#include <system_error>

#include "core/error.h"

namespace dp {
namespace {

constexpr std::size_t kShownPathBytes = 120;

// A path for a message: a very long one shortened, so the message stays one readable line.
std::string shown(const std::filesystem::path& path) {
    const std::string text = path.string();
    if (text.size() <= kShownPathBytes) return text;
    return text.substr(0, kShownPathBytes / 2) + "..." + text.substr(text.size() - kShownPathBytes / 2);
}

// The longest file name `folder` takes (255 on Linux's file systems).
std::size_t name_limit(const std::filesystem::path& folder) {
    const long limit = ::pathconf(folder.empty() ? "." : folder.c_str(), _PC_NAME_MAX);
    return limit > 0 ? std::size_t(limit) : NAME_MAX;
}

// The absolute form of `path` without touching the file system beyond the
// working directory: `..` and symlinks are resolved by the kernel as it opens.
// A path that cannot be looked at (a file where a folder should be:
// /dev/null/runs.sqlite) is taken as written: it names no file, so no output
// is it, and comparing with it is no reason to refuse the output.
std::filesystem::path resolved(const std::filesystem::path& path) {
    std::error_code error;
    std::filesystem::path target = path;
    try {
        target = write_target(path);
    } catch (const Error&) {
    }
    std::filesystem::path canonical = std::filesystem::weakly_canonical(target, error);
    if (error) canonical = std::filesystem::absolute(target, error).lexically_normal();
    return canonical;
}

}  // namespace

std::string path_length_problem(const std::filesystem::path& path, std::size_t extra_name_bytes) {
    std::filesystem::path folder;
    for (auto it = path.begin(); it != path.end(); ++it) {
        const std::filesystem::path& component = *it;
        const bool last = std::next(it) == path.end();
        const std::size_t limit = name_limit(folder), bytes = component.string().size();
        if (bytes > limit)
            return "a name in the path is " + std::to_string(bytes) + " bytes, over the " +
                   std::to_string(limit) + "-byte limit of a file name: choose a shorter name";
        if (last && bytes + extra_name_bytes > limit)
            return "the file name is " + std::to_string(bytes) + " bytes and its temporary while it "
                   "is written needs " + std::to_string(extra_name_bytes) + " more, over the " +
                   std::to_string(limit) + "-byte limit of a file name: choose a name of at most " +
                   std::to_string(limit - extra_name_bytes) + " bytes";
        folder /= component;
    }
    std::error_code error;
    const std::size_t bytes = std::filesystem::absolute(path, error).string().size() + extra_name_bytes;
    if (bytes >= PATH_MAX)
        return "the path is " + std::to_string(bytes) + " bytes long, over the system's limit of " +
               std::to_string(PATH_MAX - 1) + ": choose a shorter path";
    return {};
}

std::filesystem::path write_target(const std::filesystem::path& file) {
    std::filesystem::path target = file;
    std::error_code error;
    for (int links = 0; std::filesystem::is_symlink(target, error); ++links) {
        if (links == 40)  // as the kernel's ELOOP
            throw Error(shown(file) + " is a loop of symbolic links: give a file path");
        const std::filesystem::path next = std::filesystem::read_symlink(target, error);
        if (error) break;
        target = next.is_absolute() ? next : target.parent_path() / next;
    }
    if (error && error != std::errc::no_such_file_or_directory)
        throw Error(shown(file) + ": cannot look at it (" + error.message() + "): give another path");
    return target;
}

std::string non_file_kind(const std::filesystem::path& file) {
    std::error_code error;
    switch (std::filesystem::status(file, error).type()) {
    case std::filesystem::file_type::not_found:
    case std::filesystem::file_type::regular: return {};
    case std::filesystem::file_type::directory: return "a folder";
    case std::filesystem::file_type::character: return "a character device";
    case std::filesystem::file_type::block: return "a block device";
    case std::filesystem::file_type::fifo: return "a named pipe";
    case std::filesystem::file_type::socket: return "a socket";
    default: return error ? "unreadable (" + error.message() + ")" : "not a regular file";
    }
}

void check_output_file(const std::filesystem::path& file, const std::string& what) {
    if (file.empty()) return;
    const std::string named = what + " " + shown(file);
    if (const std::string problem = path_length_problem(file); !problem.empty())
        throw Error(named + ": " + problem);
    // What the path opens as, links followed by the kernel: /proc/self/fd/1
    // names a pipe that no chain of readlink() reaches.
    if (const std::string kind = non_file_kind(file); !kind.empty())
        throw Error(named + " is " + kind + ", not a file: give the path of a file to write");
    const std::filesystem::path target = write_target(file);
    const std::string shown_target = what + " " + shown(target);
    if (const std::string problem = path_length_problem(target, kTemporaryNameExtra); !problem.empty())
        throw Error(shown_target + ": " + problem);
    if (const std::string kind = non_file_kind(target); !kind.empty())
        throw Error(named + " is " + kind + ", not a file: give the path of a file to write");
    const std::filesystem::path folder = target.parent_path().empty() ? "." : target.parent_path();
    std::error_code error;
    if (!std::filesystem::is_directory(folder, error))
        throw Error(named + ": folder " + shown(folder) +
                    " does not exist: create it or choose another path");
    // The write creates a temporary beside the file and renames it over the
    // file, so the folder must be writable even when the file is.
    if (::access(folder.c_str(), W_OK | X_OK) != 0)
        throw Error(named + ": folder " + shown(folder) +
                    " is not writable: choose a path in a folder you can write to");
}

bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) {
    struct stat a_status {}, b_status {};
    const bool a_exists = ::stat(a.c_str(), &a_status) == 0;
    const bool b_exists = ::stat(b.c_str(), &b_status) == 0;
    if (a_exists && b_exists)
        return a_status.st_dev == b_status.st_dev && a_status.st_ino == b_status.st_ino;
    if (a_exists != b_exists) return false;
    return resolved(a) == resolved(b);
}

namespace {

// check_output_paths for outputs[i].
void check_output_path(const std::vector<NamedPath>& outputs, std::size_t i,
                       const std::vector<NamedPath>& kept) {
    const NamedPath& output = outputs[i];
    check_output_file(output.path, output.what);
    for (std::size_t j = 0; j < i; ++j)
        if (!outputs[j].path.empty() && same_file(outputs[j].path, output.path))
            throw Error(output.what + " " + shown(output.path) + " is the same file as " +
                        outputs[j].what + ": give each output its own file");
    for (const NamedPath& input : kept)
        if (!input.path.empty() && same_file(input.path, output.path))
            throw Error(output.what + " " + shown(output.path) + " is " + input.what + " (" +
                        shown(input.path) + "), which writing it would destroy: "
                        "choose another path");
}

}  // namespace

void check_output_paths(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& kept) {
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        if (outputs[i].path.empty()) continue;
        try {
            check_output_path(outputs, i, kept);
        } catch (const Error& error) {
            if (outputs[i].setting.empty()) throw;
            throw SettingError(outputs[i].setting, error.what());
        }
    }
}

}  // namespace dp
