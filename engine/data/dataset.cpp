#include "data/dataset.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <system_error>

#include "core/error.h"
#include "core/setting_ref.h"
#include "data/idx_file.h"
#include "io/path_problem.h"

namespace dp {
namespace {

constexpr const char* kDebianFashionMnistDir = "/usr/share/datasets/fashion-mnist";
constexpr int kClasses = 10;

// `stem`.gz if present, else the uncompressed `stem`; if neither exists, the
// .gz name, so that the missing-file error names the file as distributed.
std::filesystem::path locate(const std::filesystem::path& dir, const std::string& stem) {
    // An entry that is there counts, a link to nothing included, so that its
    // error names it and not the other spelling.
    const auto present = [](const std::filesystem::path& file) {
        std::error_code ignored;
        return std::filesystem::exists(std::filesystem::symlink_status(file, ignored));
    };
    const auto gzipped = dir / (stem + ".gz");
    if (present(gzipped)) return gzipped;
    const auto plain = dir / stem;
    if (present(plain)) return plain;
    return gzipped;
}

// Pixel byte to float exactly as ToTensor computes it (byte / 255 in float32),
// looked up rather than divided per pixel.
std::array<float, 256> make_pixel_scale_table() {
    std::array<float, 256> table{};
    for (int value = 0; value < 256; ++value) table[value] = float(value) / 255.0f;
    return table;
}

Dataset load_split(const std::filesystem::path& dir, const std::string& prefix, int limit) {
    const auto images_file = locate(dir, prefix + "-images-idx3-ubyte");
    const auto labels_file = locate(dir, prefix + "-labels-idx1-ubyte");
    const IdxImages idx = read_idx_images(images_file);
    const std::vector<std::uint8_t> labels = read_idx_labels(labels_file);

    if (labels.size() != std::size_t(idx.count))
        throw Error(images_file.string() + ": has " + std::to_string(idx.count) + " images but " +
                    labels_file.string() + " has " + std::to_string(labels.size()) + " labels");
    if (idx.count == 0) throw Error(images_file.string() + ": holds no images");
    for (std::size_t i = 0; i < labels.size(); ++i)
        if (labels[i] >= kClasses)
            throw Error(labels_file.string() + ": label " + std::to_string(labels[i]) + " at index " +
                        std::to_string(i) + " is outside 0.." + std::to_string(kClasses - 1));

    Dataset set;
    set.count = limit == 0 ? idx.count : std::min(limit, idx.count);
    set.channels = 1;
    set.height = idx.rows;
    set.width = idx.cols;
    set.classes = kClasses;

    static const std::array<float, 256> pixel_scale = make_pixel_scale_table();
    set.images.resize(std::size_t(set.count) * set.sample_size());
    std::transform(idx.pixels.begin(), idx.pixels.begin() + std::ptrdiff_t(set.images.size()),
                   set.images.begin(), [](std::uint8_t pixel) { return pixel_scale[pixel]; });
    set.labels.assign(labels.begin(), labels.begin() + set.count);
    return set;
}

}  // namespace

std::filesystem::path default_fashion_mnist_dir() {
    const char* override_dir = std::getenv("DP_DATA_DIR");
    if (override_dir != nullptr && *override_dir != '\0') return override_dir;
    return kDebianFashionMnistDir;
}

std::vector<std::string> missing_mnist_files(const std::filesystem::path& dir) {
    std::vector<std::string> missing;
    for (const char* prefix : {"train", "t10k"})
        for (const char* kind : {"-images-idx3-ubyte", "-labels-idx1-ubyte"}) {
            const std::string stem = std::string(prefix) + kind;
            std::error_code ignored;
            if (!std::filesystem::is_regular_file(locate(dir, stem), ignored))
                missing.push_back(stem);
        }
    return missing;
}

std::vector<std::filesystem::path> mnist_file_candidates(const std::filesystem::path& dir) {
    std::vector<std::filesystem::path> files;
    for (const char* prefix : {"train", "t10k"})
        for (const char* kind : {"-images-idx3-ubyte", "-labels-idx1-ubyte"}) {
            const std::string stem = std::string(prefix) + kind;
            files.push_back(dir / stem);
            files.push_back(dir / (stem + ".gz"));
        }
    return files;
}

TrainTestSets load_mnist_format(const std::filesystem::path& dir, int limit_train, int limit_test) {
    if (limit_train < 0 || limit_test < 0)
        throw Error("sample limits must be 0 (all) or positive, got " + std::to_string(limit_train) +
                    " (train) and " + std::to_string(limit_test) + " (test)");
    if (const auto problem = path_problem(dir)) {
        if (problem->missing)
            throw Error(dir.string() + ": data directory not found (install dataset-fashion-mnist, or give " +
                        setting("data_dir") + ")");
        throw Error(dir.string() + ": " + problem->text);
    }
    if (!std::filesystem::is_directory(dir)) throw Error(dir.string() + ": not a directory");

    TrainTestSets sets{load_split(dir, "train", limit_train), load_split(dir, "t10k", limit_test)};
    if (sets.test.height != sets.train.height || sets.test.width != sets.train.width)
        throw Error(locate(dir, "t10k-images-idx3-ubyte").string() + ": images are " +
                    std::to_string(sets.test.height) + "x" + std::to_string(sets.test.width) +
                    " but the training images are " + std::to_string(sets.train.height) + "x" +
                    std::to_string(sets.train.width));
    return sets;
}

}  // namespace dp
