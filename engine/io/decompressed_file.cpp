#include "io/decompressed_file.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "core/error.h"
#include "io/bounded_file.h"

namespace dp {
namespace {

constexpr unsigned char kGzipMagic[2] = {0x1f, 0x8b};
constexpr int kGzipOnlyWindowBits = 16 + MAX_WBITS;  // 16+: a gzip wrapper, not zlib's or none
constexpr std::size_t kInputBufferBytes = std::size_t(128) << 10;

}  // namespace

// zlib's z_stream doubles as the input buffer's cursor: next_in / avail_in are
// the bytes read from the file and not yet consumed, in plain files too.
struct DecompressedFileReader::State {
    explicit State(const std::filesystem::path& path) : file(path) {
        stream = BoundedFile(file, read_limit::idx).release_to_stdio();
        buffer_at_least(sizeof kGzipMagic);
        gzip = inflater.avail_in >= sizeof kGzipMagic &&
               std::memcmp(inflater.next_in, kGzipMagic, sizeof kGzipMagic) == 0;
        if (gzip && inflateInit2(&inflater, kGzipOnlyWindowBits) != Z_OK)
            fail("out of memory while starting to decompress");
        inflating = gzip;
    }
    ~State() {
        if (inflating) inflateEnd(&inflater);
        if (stream != nullptr) std::fclose(stream);
    }

    [[noreturn]] void fail(const std::string& problem) const { throw Error(file.string() + ": " + problem); }

    // Reads more of the file after the bytes not yet consumed until `wanted`
    // are buffered or the file ends.
    void buffer_at_least(std::size_t wanted) {
        if (inflater.avail_in > 0 && inflater.next_in != input.data())
            std::memmove(input.data(), inflater.next_in, inflater.avail_in);
        inflater.next_in = input.data();
        while (inflater.avail_in < wanted && !end_of_file) {
            const std::size_t got = std::fread(input.data() + inflater.avail_in, 1,
                                               input.size() - inflater.avail_in, stream);
            if (got == 0 && std::ferror(stream)) fail(std::string("read error: ") + std::strerror(errno));
            if (got == 0) end_of_file = true;
            inflater.avail_in += static_cast<uInt>(got);
        }
    }

    std::size_t read_plain(std::uint8_t* out, std::size_t size) {
        std::size_t total = std::min<std::size_t>(size, inflater.avail_in);
        std::memcpy(out, inflater.next_in, total);
        inflater.next_in += total;
        inflater.avail_in -= static_cast<uInt>(total);
        while (total < size && !end_of_file) {
            const std::size_t got = std::fread(out + total, 1, size - total, stream);
            if (got == 0 && std::ferror(stream)) fail(std::string("read error: ") + std::strerror(errno));
            if (got == 0) end_of_file = true;
            total += got;
        }
        return total;
    }

    std::size_t read_gzip(std::uint8_t* out, std::size_t size) {
        std::size_t total = 0;
        while (total < size) {
            if (member_ended) {
                // The end of the file, or another member (as `cat a.gz b.gz` makes).
                buffer_at_least(sizeof kGzipMagic);
                if (inflater.avail_in == 0) break;
                if (inflater.avail_in < sizeof kGzipMagic ||
                    std::memcmp(inflater.next_in, kGzipMagic, sizeof kGzipMagic) != 0)
                    fail("unexpected data after the end of the gzip stream");
                inflateReset(&inflater);
                member_ended = false;
            }
            if (inflater.avail_in == 0) buffer_at_least(1);
            if (inflater.avail_in == 0)
                fail("truncated gzip stream (the file ends before the stream's end, CRC-32 and length)");
            const auto room = static_cast<uInt>(std::min<std::size_t>(size - total, UINT_MAX));
            inflater.next_out = out + total;
            inflater.avail_out = room;
            const int code = inflate(&inflater, Z_NO_FLUSH);
            total += room - inflater.avail_out;
            if (code == Z_STREAM_END) member_ended = true;  // its CRC-32 and length matched
            if (code == Z_DATA_ERROR || code == Z_NEED_DICT)
                fail(std::string("corrupt gzip stream (") + (inflater.msg ? inflater.msg : "invalid data") + ")");
            if (code == Z_MEM_ERROR) fail("out of memory while decompressing");
            // Z_OK, or Z_BUF_ERROR: all input consumed, the next round reads more.
        }
        return total;
    }

    std::filesystem::path file;
    std::FILE* stream = nullptr;
    bool gzip = false;
    bool inflating = false;     // inflateInit2 succeeded: inflateEnd is owed
    bool end_of_file = false;   // fread found the end of the file
    bool member_ended = false;  // the gzip member read so far ended with a valid trailer
    z_stream inflater{};
    std::vector<unsigned char> input = std::vector<unsigned char>(kInputBufferBytes);
};

DecompressedFileReader::DecompressedFileReader(const std::filesystem::path& file)
    : state_(std::make_unique<State>(file)) {}

DecompressedFileReader::~DecompressedFileReader() = default;

std::size_t DecompressedFileReader::read(std::uint8_t* out, std::size_t size) {
    return state_->gzip ? state_->read_gzip(out, size) : state_->read_plain(out, size);
}

}  // namespace dp
