#pragma once

#include <filesystem>

namespace dp {

// An exclusive lock between processes (flock) on a lock file, held for this
// object's lifetime, so that one process at a time does what it guards. The
// lock file is created if needed; one that is not a regular file (a pipe, a
// device, a symlink) or cannot be created is not used: held() is false and
// the caller goes on unguarded, as it would without this lock.
class FileLock {
public:
    explicit FileLock(const std::filesystem::path& file);
    ~FileLock();
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;

    bool held() const { return fd_ >= 0; }

private:
    int fd_ = -1;
};

}  // namespace dp
