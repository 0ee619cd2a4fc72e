#pragma once

#include <filesystem>
#include <string>

namespace dp {

// The one check, before a run starts, that a file the run will write (a
// checkpoint, a run record) can be written where the user asked: its folder
// exists and is writable, and the path is a regular file or not there yet. A
// symlink is followed: the write goes to what it points at. A device node, a
// folder, a pipe or a socket is refused, never replaced (as root, replacing
// /dev/null would turn it into a regular file). Throws dp::Error naming
// `what` (a setting marker, core/setting_ref.h) and the path.
void check_output_file(const std::filesystem::path& file, const std::string& what);

// The file a write of `file` replaces: the end of its chain of symlinks, or
// `file` itself. Throws dp::Error for a symlink loop.
std::filesystem::path write_target(const std::filesystem::path& file);

// Empty if `file` is absent or a regular file, else what it is ("a folder",
// "a character device", ...), for the message refusing to replace it.
std::string non_file_kind(const std::filesystem::path& file);

}  // namespace dp
