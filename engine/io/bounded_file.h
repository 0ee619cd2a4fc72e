#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

namespace dp {

// The most each kind of file the program reads may hold: a file over it is
// refused before it is read (a link to a huge file, a corrupt one), so no
// read runs without bound.
namespace read_limit {
inline constexpr std::uint64_t kernel_cache = std::uint64_t(16) << 20;
inline constexpr std::uint64_t run_record = std::uint64_t(64) << 20;
inline constexpr std::uint64_t checkpoint = std::uint64_t(64) << 30;
inline constexpr std::uint64_t idx = std::uint64_t(16) << 30;  // compressed or not
}  // namespace read_limit

// A file opened for reading the one way the program opens its inputs:
// without blocking (O_NONBLOCK, so a named pipe or a device never hangs the
// open), refused unless it is a regular file (a link to /dev/zero would read
// without end, a FIFO would wait for a writer for ever), and refused when it
// holds more than `max_bytes`. Errors throw dp::Error "<file>: <problem>".
class BoundedFile {
public:
    BoundedFile(const std::filesystem::path& file, std::uint64_t max_bytes);
    ~BoundedFile();
    BoundedFile(const BoundedFile&) = delete;
    BoundedFile& operator=(const BoundedFile&) = delete;

    std::uint64_t size() const { return size_; }
    // Reads exactly `bytes` or throws (the file shrank while it was read).
    void read_exactly(void* out, std::uint64_t bytes);
    // The rest of the file, up to its size when it was opened.
    std::string read_rest();
    // Hands the descriptor to a stdio stream (which then owns it).
    std::FILE* release_to_stdio();

private:
    [[noreturn]] void fail(const std::string& problem) const;

    std::filesystem::path file_;
    int fd_ = -1;
    std::uint64_t size_ = 0, read_ = 0;
};

// The whole of `file`, opened as BoundedFile does.
std::string read_bounded_file(const std::filesystem::path& file, std::uint64_t max_bytes);

}  // namespace dp
