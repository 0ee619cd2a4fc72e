#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace dp {

// How many bytes a temporary's name adds to the file it replaces
// (io/atomic_file.h: `name`.tmp.<pid>.XXXXXX, the pid up to 10 digits).
inline constexpr std::size_t kTemporaryNameExtra = 22;

// The one check, before a run starts, that a file the run will write (a
// checkpoint, a run record) can be written where the user asked: its folder
// exists and is writable, the path is a regular file or not there yet, and
// its name leaves room for the temporary beside it (kTemporaryNameExtra), so
// the write after the first epoch cannot fail on the name's length. A
// symlink is followed: the write goes to what it points at. A device node, a
// folder, a pipe or a socket is refused, never replaced (as root, replacing
// /dev/null would turn it into a regular file). Throws dp::Error naming
// `what` (a setting marker, core/setting_ref.h) and the path.
void check_output_file(const std::filesystem::path& file, const std::string& what);

// A path and what it is, for messages ("{save_path}", "the run history").
struct NamedPath {
    std::filesystem::path path;
    std::string what;
    // The setting whose value the path is ("save_path"); empty for the
    // program's own files. A refused output is a dp::SettingError about it.
    std::string setting = {};
};

// The one output-path rule: each of `outputs` passes check_output_file, and
// none is another of `outputs` or one of `kept` (the run's inputs, the run
// history, the kernel cache), so no output destroys a file the run reads or
// keeps. Empty paths are skipped. Throws dp::Error naming both (a
// dp::SettingError when the refused output is a setting's).
void check_output_paths(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& kept);

// True when `a` and `b` name one file: the same inode when both exist, else
// the same path once symlinks and ".." are resolved.
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b);

// Empty, or why `path` is too long for the system (a component over the
// folder's name limit, the whole over PATH_MAX), with the fix.
std::string path_length_problem(const std::filesystem::path& path, std::size_t extra_name_bytes = 0);

// The file a write of `file` replaces: the end of its chain of symlinks, or
// `file` itself. Throws dp::Error for a symlink loop or a path the system
// cannot look at.
std::filesystem::path write_target(const std::filesystem::path& file);

// Empty if `file` is absent or a regular file, else what it is ("a folder",
// "a character device", ...), for the message refusing to replace it.
std::string non_file_kind(const std::filesystem::path& file);

}  // namespace dp
