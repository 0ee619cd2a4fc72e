#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

namespace dp {

// The IDX format of MNIST and Fashion-MNIST (http://yann.lecun.com/exdb/mnist/):
// big-endian magic 0x00000803 (images, dims count/rows/cols) or 0x00000801
// (labels, dim count), then unsigned bytes. Files may be gzip-compressed.
struct IdxImages {
    int count = 0, rows = 0, cols = 0;
    std::vector<std::uint8_t> pixels;  // count * rows * cols
};

// The most memory one IDX file may make a data set take: its bytes as read
// plus the float32 copy dp::Dataset makes of them (5 bytes a pixel; a label
// is read as a byte and kept as an int32, 5 bytes too). 2 GiB is over ten
// times Fashion-MNIST's training set (60,000 images of 28x28: 235 MB) and
// holds the largest 10-class MNIST-format set, EMNIST Digits (240,000
// images: 941 MB). A header claiming more is refused, naming the size it
// would take and this limit, before anything is allocated.
inline constexpr std::uint64_t kMaxIdxSetMemoryBytes = std::uint64_t(2) << 30;
inline constexpr std::uint64_t kLoadedBytesPerPixel = 1 + sizeof(float);
inline constexpr std::uint64_t kLoadedBytesPerLabel = 1 + sizeof(std::int32_t);

// Each throws dp::Error with a one-line message naming the file and the problem
// (missing, unreadable, corrupt or truncated gzip, wrong magic, a header
// claiming more than the limit above, truncated data, data after it).
// Memory grows with the bytes actually in the file, never with what a possibly
// lying header claims: the pixels are read in pieces into a buffer that at
// most doubles, and never grows past the size the header declares.
IdxImages read_idx_images(const std::filesystem::path& file);
std::vector<std::uint8_t> read_idx_labels(const std::filesystem::path& file);

}  // namespace dp
