#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <string_view>

namespace dp {

// A file written atomically: the bytes go to a temporary beside it
// (`file`.tmp.XXXXXX, a new name per writer, so two runs saving to one path
// never write into each other's) and commit() flushes them to disk and
// renames the temporary over `file`, so a reader sees the old file or the new
// one, never a part. Without commit() (an error, an exception) the temporary
// is removed and `file` left as it was. A symlink is written through (its
// target is replaced); a device node, folder or pipe is refused, never
// replaced. Failures throw dp::Error naming `file`.
class AtomicFile {
public:
    explicit AtomicFile(const std::filesystem::path& file);
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    void write(std::span<const std::byte> bytes);
    void write(std::string_view text) { write(std::as_bytes(std::span(text))); }
    void commit();

private:
    [[noreturn]] void fail_with_errno(const std::string& what);

    std::filesystem::path file_, temporary_;
    int fd_ = -1;
    bool committed_ = false;
};

}  // namespace dp
