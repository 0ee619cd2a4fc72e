// Fuzzes the IDX reader (data/idx_file.h): images and labels, plain and gzip.
// The reader tells gzip from plain by the bytes and images from labels by the
// magic number, so each input goes through both entry points. Bad input must
// end in dp::Error: anything else (another exception, a crash, a sanitizer
// report, a leak, a timeout) is a bug.

#include <cstdint>

#include "core/error.h"
#include "data/idx_file.h"
#include "fuzz_check.h"
#include "scratch_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static ScratchFile scratch("input-idx-ubyte");
    const auto& file = scratch.write(data, size);
    try {
        const dp::IdxImages images = dp::read_idx_images(file);
        // What the reader promises: the pixels of every image it declares.
        fuzz_require(images.pixels.size() == std::size_t(images.count) * images.rows * images.cols,
                     "read_idx_images returns count x rows x cols pixels");
    } catch (const dp::Error&) {
    }
    try {
        dp::read_idx_labels(file);
    } catch (const dp::Error&) {
    }
    return 0;
}
