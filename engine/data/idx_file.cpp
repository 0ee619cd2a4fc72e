#include "data/idx_file.h"

#include <algorithm>
#include <array>
#include <string>
#include <system_error>

#include "core/error.h"
#include "core/format.h"
#include "core/setting_ref.h"
#include "io/decompressed_file.h"
#include "io/path_problem.h"

namespace dp {
namespace {

constexpr std::uint32_t kImagesMagic = 0x00000803;
constexpr std::uint32_t kLabelsMagic = 0x00000801;

// The payload is read in pieces, so that memory follows the bytes actually in
// the file: a header's claim is only believed as far as the data backs it.
constexpr std::size_t kReadPieceBytes = std::size_t(1) << 20;

[[noreturn]] void fail(const std::filesystem::path& file, const std::string& problem) {
    throw Error(file.string() + ": " + problem);
}

std::string hex32(std::uint32_t value) {
    return format("0x%08x", static_cast<unsigned>(value));
}

// "2 GiB", "3.65 GiB", "15680 GiB", "188 MiB": three significant digits or whole units.
std::string memory_text(double bytes) {
    constexpr double kMiB = 1 << 20, kGiB = 1 << 30;
    const bool in_gib = bytes >= kGiB;
    const double units = bytes / (in_gib ? kGiB : kMiB);
    return format(units >= 100 ? "%.0f %s" : "%.3g %s", units, in_gib ? "GiB" : "MiB");
}

std::uint32_t big_endian_u32(const std::uint8_t* bytes) {
    return std::uint32_t(bytes[0]) << 24 | std::uint32_t(bytes[1]) << 16 |
           std::uint32_t(bytes[2]) << 8 | std::uint32_t(bytes[3]);
}

// The data files of a set: a missing one most likely means the package or
// the folder option is missing.
void check_regular_file(const std::filesystem::path& file) {
    if (const auto problem = path_problem(file))
        fail(file, problem->missing ? "file not found (install dataset-fashion-mnist, or give " +
                                          setting("data_dir") + ")"
                                    : problem->text);
    if (!std::filesystem::is_regular_file(file)) fail(file, "not a regular file");
}

// Refuses a header whose `items` of `bytes_per_item` each would take more
// memory, loaded, than the limit; `claim` says what the header declares.
void check_loaded_size(const std::filesystem::path& file, std::uint64_t items, double bytes_per_item,
                       const std::string& claim) {
    const double loaded = double(items) * bytes_per_item;
    if (loaded > double(kMaxIdxSetMemoryBytes))
        fail(file, "header says " + claim + ", which would take " + memory_text(loaded) +
                       " of memory loaded; the limit is " + memory_text(double(kMaxIdxSetMemoryBytes)) +
                       " (corrupt header?)");
}

// Checks the magic number and returns the `dim_count` dimensions after it.
std::array<std::uint32_t, 3> read_header(DecompressedFileReader& in, const std::filesystem::path& file,
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
// The buffer grows with the data read: it at most doubles each time, and
// never past `size`, so a lying header costs at most twice the real data.
std::vector<std::uint8_t> read_payload(DecompressedFileReader& in, const std::filesystem::path& file,
                                       std::size_t size, std::size_t count, const std::string& claim) {
    std::vector<std::uint8_t> payload;
    while (payload.size() < size) {
        const std::size_t offset = payload.size();
        const std::size_t piece = std::min(size - offset, kReadPieceBytes);
        if (offset + piece > payload.capacity())
            payload.reserve(std::min(size, std::max(offset + piece, 2 * payload.capacity())));
        payload.resize(offset + piece);
        const std::size_t got = in.read(payload.data() + offset, piece);
        if (got < piece) {
            const std::size_t item_bytes = size / count;  // count > 0 as size > 0
            fail(file, "truncated: header says " + claim + " but the file ends after " +
                           std::to_string((offset + got) / item_bytes) + " of them");
        }
    }
    // Reading past the end also makes the reader check a gzip stream's trailer.
    std::uint8_t extra = 0;
    if (in.read(&extra, 1) != 0)
        fail(file, "unexpected data after the " + claim + " the header declares (corrupt header?)");
    return payload;
}

}  // namespace

IdxImages read_idx_images(const std::filesystem::path& file) {
    check_regular_file(file);
    DecompressedFileReader in(file);
    const auto dims = read_header(in, file, kImagesMagic, 3, "image");
    const std::uint64_t count = dims[0], rows = dims[1], cols = dims[2];
    const std::string claim = std::to_string(count) + " images of " + std::to_string(rows) + "x" +
                              std::to_string(cols);
    // Each dimension is below 2^32, so rows * cols cannot overflow 64 bits.
    const std::uint64_t image_bytes = rows * cols;
    if (image_bytes == 0 || image_bytes > kMaxIdxSetMemoryBytes / kLoadedBytesPerPixel)
        fail(file, "implausible size in header: " + claim +
                       " (images without pixels, or one image over the memory limit; corrupt header?)");
    check_loaded_size(file, count, double(image_bytes) * kLoadedBytesPerPixel, claim);

    IdxImages images;
    images.count = static_cast<int>(count);
    images.rows = static_cast<int>(rows);
    images.cols = static_cast<int>(cols);
    images.pixels = read_payload(in, file, count * image_bytes, count, claim);
    return images;
}

std::vector<std::uint8_t> read_idx_labels(const std::filesystem::path& file) {
    check_regular_file(file);
    DecompressedFileReader in(file);
    const std::uint64_t count = read_header(in, file, kLabelsMagic, 1, "label")[0];
    const std::string claim = std::to_string(count) + " labels";
    check_loaded_size(file, count, kLoadedBytesPerLabel, claim);
    return read_payload(in, file, count, count, claim);
}

}  // namespace dp
