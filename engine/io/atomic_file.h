#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <span>
#include <string_view>

namespace dp {

// A file written atomically: the bytes go to a temporary beside it
// (`file`.tmp.<pid>.XXXXXX, a new name per writer, so two runs saving to one
// path never write into each other's) and commit() flushes them to disk and
// renames the temporary over `file`, so a reader sees the old file or the new
// one, never a part. Without commit() (an error, an exception) the temporary
// is removed and `file` left as it was. The new file keeps the old one's
// permissions (0644 for a new file). A writer killed before its rename
// leaves its temporary: the next write of `file` removes those whose writer
// is gone and that are over a minute old (kStaleTemporaryAge). A symlink is
// written through (its target is replaced); a device node, folder or pipe is
// refused, never replaced. Failures throw dp::Error naming `file`.
// How old a dead writer's temporary must be before a write removes it (a
// writer on another machine sharing the folder may look dead here).
inline constexpr std::chrono::seconds kStaleTemporaryAge{60};

// Removes the temporaries of `file` that AtomicFile writers left behind,
// killed between writing and renaming (see above).
void remove_stale_temporaries(const std::filesystem::path& file);

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
