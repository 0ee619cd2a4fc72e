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

// Each throws dp::Error with a one-line message naming the file and the problem
// (missing, unreadable gzip, wrong magic, truncated).
IdxImages read_idx_images(const std::filesystem::path& file);
std::vector<std::uint8_t> read_idx_labels(const std::filesystem::path& file);

}  // namespace dp
