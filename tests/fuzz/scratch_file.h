#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

// A file that each fuzz input is written to, in a folder of this process's
// own under the temporary directory (removed at exit): the readers under test
// take paths, as they do in dp-train and the workbench, so that their whole
// path from open() on is fuzzed.
class ScratchFile {
public:
    explicit ScratchFile(const std::string& name);
    ~ScratchFile();
    ScratchFile(const ScratchFile&) = delete;
    ScratchFile& operator=(const ScratchFile&) = delete;

    // Replaces the file's contents with `data`; returns its path.
    const std::filesystem::path& write(const std::uint8_t* data, std::size_t size);
    const std::filesystem::path& folder() const { return folder_; }

private:
    std::filesystem::path folder_, file_;
};
