#include "io/atomic_file.h"

#include <fcntl.h>
#include <signal.h>
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
namespace {

using Clock = std::filesystem::file_time_type::clock;

// ".tmp.<pid>.": what a temporary of this process adds before mkstemp's six letters.
std::string temporary_infix() { return ".tmp." + std::to_string(::getpid()) + "."; }

// The pid in a temporary's name after `file`'s name, or 0 if `name` is not one.
pid_t temporary_writer(const std::string& name, const std::string& file_name) {
    const std::string prefix = file_name + ".tmp.";
    if (!name.starts_with(prefix)) return 0;
    const std::string rest = name.substr(prefix.size());
    const auto dot = rest.find('.');
    if (dot == 0 || dot == std::string::npos || rest.size() - dot - 1 != 6) return 0;
    if (rest.find_first_not_of("0123456789") != dot) return 0;
    return pid_t(std::strtol(rest.c_str(), nullptr, 10));
}

bool process_gone(pid_t pid) { return ::kill(pid, 0) != 0 && errno == ESRCH; }

}  // namespace

void remove_stale_temporaries(const std::filesystem::path& file) {
    const std::filesystem::path folder = file.parent_path().empty() ? "." : file.parent_path();
    const std::string file_name = file.filename().string();
    std::error_code error;
    for (std::filesystem::directory_iterator it(folder, error), end; !error && it != end;
         it.increment(error)) {
        const std::filesystem::path temporary = it->path();
        const pid_t writer = temporary_writer(temporary.filename().string(), file_name);
        if (writer <= 0 || !it->is_regular_file(error) || !process_gone(writer)) continue;
        const auto written = std::filesystem::last_write_time(temporary, error);
        if (!error && Clock::now() - written > kStaleTemporaryAge) ::unlink(temporary.c_str());
        error.clear();
    }
}

AtomicFile::AtomicFile(const std::filesystem::path& file) : file_(write_target(file)) {
    if (std::string kind = non_file_kind(file); !kind.empty() || !(kind = non_file_kind(file_)).empty())
        throw Error(file.string() + ": is " + kind + ", not a regular file; it is not replaced");
    remove_stale_temporaries(file_);
    std::string name = file_.string() + temporary_infix() + "XXXXXX";
    fd_ = ::mkstemp(name.data());
    if (fd_ < 0) fail_with_errno("cannot create a temporary file beside it");
    temporary_ = name;
    ::fcntl(fd_, F_SETFD, FD_CLOEXEC);
    // The old file's permissions (a private 0600 stays private); mkstemp's
    // 0600 for a new one would make checkpoints private to their writer.
    struct stat old_file {};
    ::fchmod(fd_, ::stat(file_.c_str(), &old_file) == 0 ? old_file.st_mode & 07777 : 0644);
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
