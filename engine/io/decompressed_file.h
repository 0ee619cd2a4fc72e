#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>

namespace dp {

// A file's bytes, gunzipped when the file is gzip (it starts with gzip's magic
// 1f 8b), else as they are.
//
// zlib's gzread() reports a gzip stream that is cut short after its last
// complete block as a plain end of file whenever the caller's reads happen to
// end on that block, so a file missing its CRC-32 and length trailer would
// pass. This reader drives inflate() itself and refuses a gzip file that ends
// before its end-of-stream block and trailer, whose CRC-32 or length does not
// match, or that has data after its end other than further gzip members
// (which `gzip -d` reads as one stream, and so does this reader).
//
// Errors throw dp::Error naming the file: cannot open, read error, corrupt or
// truncated gzip. The caller checks that the file exists (its message knows
// what the file is for).
class DecompressedFileReader {
public:
    explicit DecompressedFileReader(const std::filesystem::path& file);
    ~DecompressedFileReader();
    DecompressedFileReader(const DecompressedFileReader&) = delete;
    DecompressedFileReader& operator=(const DecompressedFileReader&) = delete;

    // Reads up to `size` bytes into `out`. It returns fewer only at the end of
    // the data, and for a gzip file only once its last member ended with a
    // matching CRC-32 and length.
    std::size_t read(std::uint8_t* out, std::size_t size);

private:
    struct State;  // the open file and, for gzip, zlib's inflate state
    std::unique_ptr<State> state_;
};

}  // namespace dp
