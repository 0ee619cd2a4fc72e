#include "scratch_file.h"

#include <stdlib.h>

#include <cstdio>
#include <stdexcept>
#include <system_error>

ScratchFile::ScratchFile(const std::string& name) {
    std::string pattern = (std::filesystem::temp_directory_path() / "dp-fuzz-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr)
        throw std::system_error(errno, std::generic_category(), "fuzz harness: mkdtemp " + pattern);
    folder_ = pattern;
    file_ = folder_ / name;
}

ScratchFile::~ScratchFile() {
    std::error_code ignored;
    std::filesystem::remove_all(folder_, ignored);
}

const std::filesystem::path& ScratchFile::write(const std::uint8_t* data, std::size_t size) {
    std::FILE* out = std::fopen(file_.c_str(), "wb");
    // fwrite's buffer must not be null even for no bytes (an empty input's may be).
    const bool written = out != nullptr && (size == 0 || std::fwrite(data, 1, size, out) == size);
    if (out == nullptr || std::fclose(out) != 0 || !written)
        throw std::runtime_error("fuzz harness: cannot write " + file_.string());
    return file_;
}
