#include "data/idx_file.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>

#include "core/error.h"
#include "core/setting_ref.h"
#include "core/format.h"

namespace dp {
namespace {

constexpr std::uint32_t kImagesMagic = 0x00000803;
constexpr std::uint32_t kLabelsMagic = 0x00000801;

// No real IDX set comes near this (Fashion-MNIST's training images are 47 MB);
// a header claiming more is corrupt, and refusing it keeps memory bounded.
constexpr std::uint64_t kMaxPayloadBytes = std::uint64_t(1) << 30;
constexpr const char* kMaxPayloadText = "1 GiB";

// The payload is read in pieces so memory grows with the bytes actually in the
// file, never with what a possibly corrupt header claims.
constexpr std::size_t kReadPieceBytes = std::size_t(1) << 20;
constexpr std::size_t kMaxInitialReserveBytes = std::size_t(64) << 20;

[[noreturn]] void fail(const std::filesystem::path& file, const std::string& problem) {
    throw Error(file.string() + ": " + problem);
}

std::string hex32(std::uint32_t value) {
    return format("0x%08x", static_cast<unsigned>(value));
}

std::uint32_t big_endian_u32(const std::uint8_t* bytes) {
    return std::uint32_t(bytes[0]) << 24 | std::uint32_t(bytes[1]) << 16 |
           std::uint32_t(bytes[2]) << 8 | std::uint32_t(bytes[3]);
}

// A file opened through zlib, which reads gzip'd and plain files alike.
class GzReader {
public:
    explicit GzReader(const std::filesystem::path& file) : file_(file) {
        std::error_code status_error;
        const auto status = std::filesystem::status(file, status_error);
        if (status.type() == std::filesystem::file_type::not_found)
            fail(file, "file not found (install dataset-fashion-mnist, or give " + setting("data_dir") + ")");
        if (status_error) fail(file, "cannot access: " + status_error.message());
        if (!std::filesystem::is_regular_file(status)) fail(file, "not a regular file");

        errno = 0;
        gz_ = gzopen(file.c_str(), "rb");
        if (gz_ == nullptr)
            fail(file, std::string("cannot open: ") + (errno != 0 ? std::strerror(errno) : "out of memory"));
        gzbuffer(gz_, 128 * 1024);  // zlib's 8 KiB default makes large reads slow
    }
    ~GzReader() { gzclose_r(gz_); }
    GzReader(const GzReader&) = delete;
    GzReader& operator=(const GzReader&) = delete;

    // Reads up to `size` bytes; returns how many the file still held.
    std::size_t read(std::uint8_t* out, std::size_t size) {
        std::size_t total = 0;
        while (total < size) {
            const auto piece = static_cast<unsigned>(std::min(size - total, kReadPieceBytes));
            const int got = gzread(gz_, out + total, piece);
            if (got < 0) fail_with_zlib_error();
            if (got == 0) break;
            total += static_cast<std::size_t>(got);
        }
        return total;
    }

    // After a short read: whether a gzip stream ended before its trailer, which
    // zlib reports as end of file rather than as an error.
    bool gzip_stream_cut_short() {
        int code = Z_OK;
        gzerror(gz_, &code);
        return code == Z_BUF_ERROR;
    }

private:
    [[noreturn]] void fail_with_zlib_error() {
        int code = Z_OK;
        std::string message = gzerror(gz_, &code);
        // zlib prefixes its messages with the path, which fail() adds anyway.
        const std::string path_prefix = file_.string() + ": ";
        if (message.starts_with(path_prefix)) message.erase(0, path_prefix.size());
        if (code == Z_ERRNO) fail(file_, "read error: " + message);
        if (code == Z_MEM_ERROR) fail(file_, "out of memory while decompressing");
        fail(file_, "corrupt gzip stream (" + message + ")");
    }

    std::filesystem::path file_;
    gzFile gz_ = nullptr;
};

// Checks the magic number and returns the `dim_count` dimensions after it.
std::array<std::uint32_t, 3> read_header(GzReader& in, const std::filesystem::path& file,
                                         std::uint32_t expected_magic, std::size_t dim_count,
                                         const char* kind) {
    const std::size_t header_bytes = 4 + 4 * dim_count;
    std::array<std::uint8_t, 16> header{};
    std::size_t got = in.read(header.data(), 4);
    if (got == 4) {
        const std::uint32_t magic = big_endian_u32(header.data());
        if (magic != expected_magic)
            fail(file, "wrong magic number " + hex32(magic) + ", expected " + hex32(expected_magic) +
                           " (not an IDX " + kind + " file)");
        got += in.read(header.data() + 4, header_bytes - 4);
    }
    if (got < header_bytes)
        fail(file, "truncated header: the file ends after " + std::to_string(got) + " bytes, an IDX " +
                       kind + " header has " + std::to_string(header_bytes));

    std::array<std::uint32_t, 3> dims{};
    for (std::size_t i = 0; i < dim_count; ++i) dims[i] = big_endian_u32(header.data() + 4 + 4 * i);
    return dims;
}

// Reads the `size` payload bytes of `count` items described by `claim` (as in
// "60000 images of 28x28"), and checks that the file ends right after them.
std::vector<std::uint8_t> read_payload(GzReader& in, const std::filesystem::path& file,
                                       std::size_t size, std::size_t count, const std::string& claim) {
    std::vector<std::uint8_t> payload;
    payload.reserve(std::min(size, kMaxInitialReserveBytes));
    while (payload.size() < size) {
        const std::size_t offset = payload.size();
        const std::size_t piece = std::min(size - offset, kReadPieceBytes);
        payload.resize(offset + piece);
        const std::size_t got = in.read(payload.data() + offset, piece);
        if (got < piece) {
            const std::size_t item_bytes = size / count;  // count > 0 as size > 0
            fail(file, "truncated: header says " + claim + " but the file ends after " +
                           std::to_string((offset + got) / item_bytes) + " of them");
        }
    }
    // Reading past the end also makes zlib verify the gzip checksum.
    std::uint8_t extra = 0;
    if (in.read(&extra, 1) != 0)
        fail(file, "unexpected data after the " + claim + " the header declares (corrupt header?)");
    if (in.gzip_stream_cut_short()) fail(file, "truncated gzip stream (it ends before its checksum)");
    return payload;
}

}  // namespace

IdxImages read_idx_images(const std::filesystem::path& file) {
    GzReader in(file);
    const auto dims = read_header(in, file, kImagesMagic, 3, "image");
    const std::uint64_t count = dims[0], rows = dims[1], cols = dims[2];
    const std::string claim = std::to_string(count) + " images of " + std::to_string(rows) + "x" +
                              std::to_string(cols);
    // Each dimension is below 2^32, so rows * cols cannot overflow 64 bits.
    const std::uint64_t image_bytes = rows * cols;
    if (image_bytes == 0 || image_bytes > kMaxPayloadBytes || count > kMaxPayloadBytes / image_bytes)
        fail(file, "implausible size in header: " + claim + " (zero, or over " + kMaxPayloadText +
                       "; corrupt header?)");

    IdxImages images;
    images.count = static_cast<int>(count);
    images.rows = static_cast<int>(rows);
    images.cols = static_cast<int>(cols);
    images.pixels = read_payload(in, file, count * image_bytes, count, claim);
    return images;
}

std::vector<std::uint8_t> read_idx_labels(const std::filesystem::path& file) {
    GzReader in(file);
    const std::uint64_t count = read_header(in, file, kLabelsMagic, 1, "label")[0];
    const std::string claim = std::to_string(count) + " labels";
    if (count > kMaxPayloadBytes)
        fail(file, "implausible size in header: " + claim + " (over " + kMaxPayloadText +
                       "; corrupt header?)");
    return read_payload(in, file, count, count, claim);
}

}  // namespace dp
