#include "io/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstdio>
#include <string>
#include <system_error>
#include <utility>

#include "core/error.h"
#include "io/output_file.h"

namespace dp {

AtomicFile::AtomicFile(const std::filesystem::path& file) : file_(write_target(file)) {
    if (const std::string kind = non_file_kind(file_); !kind.empty())
        throw Error(file.string() + ": is " + kind + ", not a regular file; it is not replaced");
    std::string name = file_.string() + ".tmp.XXXXXX";
    fd_ = ::mkstemp(name.data());
    if (fd_ < 0) fail_with_errno("cannot create a temporary file beside it");
    temporary_ = name;
    ::fcntl(fd_, F_SETFD, FD_CLOEXEC);
    ::fchmod(fd_, 0644);  // mkstemp's 0600 would make checkpoints private to their writer
}

AtomicFile::~AtomicFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_ && !temporary_.empty()) ::unlink(temporary_.c_str());
}

void AtomicFile::write(std::span<const std::byte> bytes) {
    while (!bytes.empty()) {
        const ssize_t written = ::write(fd_, bytes.data(), bytes.size());
        if (written < 0 && errno == EINTR) continue;
        if (written < 0) fail_with_errno("cannot write");
        bytes = bytes.subspan(std::size_t(written));
    }
}

// Flushes the data to disk before the rename, so a crash cannot leave the
// new name pointing at a file whose blocks were never written.
void AtomicFile::commit() {
    if (::fsync(fd_) != 0) fail_with_errno("cannot flush to disk");
    const int fd = std::exchange(fd_, -1);
    if (::close(fd) != 0) fail_with_errno("cannot write");
    if (std::rename(temporary_.c_str(), file_.c_str()) != 0)
        fail_with_errno("cannot rename " + temporary_.filename().string() + " over it");
    committed_ = true;
    // Makes the rename itself durable. Past this point the new file is in
    // place, so a failure here is not reported as a failed write.
    const std::filesystem::path directory = file_.parent_path().empty() ? "." : file_.parent_path();
    const int directory_fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (directory_fd >= 0) {
        ::fsync(directory_fd);
        ::close(directory_fd);
    }
}

void AtomicFile::fail_with_errno(const std::string& what) {
    throw Error(file_.string() + ": " + what + ": " +
                std::error_code(errno, std::generic_category()).message());
}

}  // namespace dp
