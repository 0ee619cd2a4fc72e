#pragma once

#include <filesystem>
#include <string>

namespace dp {

// A folder of this process's own in the system's temporary folder ($TMPDIR,
// else /tmp), removed with everything in it when this object goes. Throws
// dp::Error, one line naming $TMPDIR and the fix, when it cannot be made.
class ScratchFolder {
public:
    explicit ScratchFolder(const std::string& prefix);
    ~ScratchFolder();
    ScratchFolder(const ScratchFolder&) = delete;
    ScratchFolder& operator=(const ScratchFolder&) = delete;

    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

}  // namespace dp
