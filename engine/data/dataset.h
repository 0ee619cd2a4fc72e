#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace dp {

// An in-memory image classification set: float32 NCHW pixels in [0, 1]
// (as d2l's ToTensor) and integer labels.
struct Dataset {
    int count = 0;
    int channels = 1, height = 0, width = 0;
    int classes = 10;
    std::vector<float> images;
    std::vector<std::int32_t> labels;

    std::size_t sample_size() const { return std::size_t(channels) * height * width; }
};

struct TrainTestSets {
    Dataset train, test;
};

// DP_DATA_DIR if set, else Debian's dataset-fashion-mnist location.
std::filesystem::path default_fashion_mnist_dir();

// Which of the four files load_mnist_format reads are not in `dir`, by
// their uncompressed names ("t10k-labels-idx1-ubyte"; the .gz form counts as
// present), in the order train images, train labels, t10k images, t10k
// labels. All four when `dir` is not a folder. Looks only at the names: the
// front ends check a folder with it before a run, the loader reads the files.
std::vector<std::string> missing_mnist_files(const std::filesystem::path& dir);

// Every file load_mnist_format may read in `dir` (each of the four by its
// plain and its .gz name), whether present or not.
std::vector<std::filesystem::path> mnist_file_candidates(const std::filesystem::path& dir);

// Loads {train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz] from `dir`, keeping
// the first `limit_train` / `limit_test` samples in file order (0 = all).
// Throws dp::Error naming the file and the problem, including image/label
// count mismatches and labels outside 0..9. Each file's set is bounded in
// memory, float copy included (data/idx_file.h, kMaxIdxSetMemoryBytes).
TrainTestSets load_mnist_format(const std::filesystem::path& dir, int limit_train = 0,
                                int limit_test = 0);

}  // namespace dp
