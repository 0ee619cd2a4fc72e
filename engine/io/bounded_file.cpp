#include "io/bounded_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

#include "core/error.h"
#include "io/path_problem.h"

namespace dp {
namespace {

std::string errno_text(int code) { return std::error_code(code, std::generic_category()).message(); }

const char* kind_of(mode_t mode) {
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISFIFO(mode)) return "a named pipe";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

std::string size_text(std::uint64_t bytes) {
    return bytes >= (std::uint64_t(1) << 30) ? std::to_string(bytes >> 30) + " GiB"
                                              : std::to_string(bytes >> 20) + " MiB";
}

}  // namespace

BoundedFile::BoundedFile(const std::filesystem::path& file, std::uint64_t max_bytes) : file_(file) {
    fd_ = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd_ < 0) {
        const int code = errno;
        if (const auto problem = path_problem(file)) fail(problem->text);
        fail("cannot open: " + errno_text(code));
    }
    struct stat status {};
    if (::fstat(fd_, &status) != 0) fail("cannot read: " + errno_text(errno));
    if (!S_ISREG(status.st_mode))
        fail(std::string("is ") + kind_of(status.st_mode) + ", not a regular file: give a file");
    size_ = std::uint64_t(status.st_size);
    if (size_ > max_bytes)
        fail("is " + std::to_string(size_) + " bytes, over the " + size_text(max_bytes) +
             " a file of its kind may hold (corrupt, or not the file meant?)");
    // Reads block as usual from here: O_NONBLOCK was for the open alone.
    ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
}

BoundedFile::~BoundedFile() {
    if (fd_ >= 0) ::close(fd_);
}

void BoundedFile::fail(const std::string& problem) const {
    throw Error(file_.string() + ": " + problem);
}

void BoundedFile::read_exactly(void* out, std::uint64_t bytes) {
    auto* cursor = static_cast<char*>(out);
    if (bytes > size_ - read_) fail("read error (was the file changed while it was read?)");
    while (bytes > 0) {
        const ssize_t got = ::read(fd_, cursor, bytes);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) fail("read error: " + errno_text(errno));
        if (got == 0) fail("read error (was the file changed while it was read?)");
        cursor += got;
        bytes -= std::uint64_t(got);
        read_ += std::uint64_t(got);
    }
}

std::string BoundedFile::read_rest() {
    std::string text(size_ - read_, '\0');
    read_exactly(text.data(), text.size());
    return text;
}

std::FILE* BoundedFile::release_to_stdio() {
    std::FILE* stream = ::fdopen(fd_, "rb");
    if (stream == nullptr) fail("cannot open: " + errno_text(errno));
    fd_ = -1;
    return stream;
}

std::string read_bounded_file(const std::filesystem::path& file, std::uint64_t max_bytes) {
    BoundedFile in(file, max_bytes);
    return in.read_rest();
}

}  // namespace dp
