#include "config/training_data.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "data/random_dataset.h"

namespace dp {
namespace {

constexpr int random_classes = 2;  // PyTorch's DataParallel tutorial's output_size
// The samples of each set the fingerprint's checksum covers: more than the
// first batch of most runs, a fraction of a millisecond to hash.
constexpr int fingerprint_samples = 256;

// FNV-1a, 64 bits, over `bytes` bytes at `data`, continuing from `hash`.
std::uint64_t fnv1a(std::uint64_t hash, const void* data, std::size_t bytes) {
    const auto* byte = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < bytes; ++i) hash = (hash ^ byte[i]) * 0x100000001b3ull;
    return hash;
}

std::uint64_t first_samples_checksum(std::uint64_t hash, const Dataset& set) {
    const auto samples = std::size_t(std::min(set.count, fingerprint_samples));
    hash = fnv1a(hash, set.images.data(), std::min(set.images.size(), samples * set.sample_size()) * sizeof(float));
    return fnv1a(hash, set.labels.data(), std::min(set.labels.size(), samples) * sizeof(std::int32_t));
}


}  // namespace

std::filesystem::path data_folder(const TrainConfig& config) {
    return config.data_dir.empty() ? default_fashion_mnist_dir()
                                   : std::filesystem::path(config.data_dir);
}

const std::vector<std::string>& dataset_names() {
    static const std::vector<std::string> names{"fashion-mnist", "mnist-format", "random"};
    return names;
}

std::string training_data_source(const TrainConfig& config) {
    if (config.dataset == "random")
        return "random data: " + std::to_string(config.samples) + " samples of " +
               std::to_string(config.input_size) + " features";
    return data_folder(config).string();
}

std::vector<std::filesystem::path> training_data_files(const TrainConfig& config) {
    if (config.dataset == "random") return {};
    return mnist_file_candidates(data_folder(config));
}

DataFolderProblem data_folder_problem(const TrainConfig& config) {
    using Kind = DataFolderProblem::Kind;
    if (config.dataset == "random") return {};
    const bool default_folder = config.data_dir.empty();
    if (default_folder && config.dataset != "fashion-mnist") return {Kind::no_folder, {}, {}};
    const std::filesystem::path folder = data_folder(config);
    std::vector<std::string> missing = missing_mnist_files(folder);
    if (missing.empty()) return {};
    if (default_folder) return {Kind::not_installed, folder, std::move(missing)};
    std::error_code error;
    const auto status = std::filesystem::status(folder, error);
    if (!std::filesystem::exists(status)) return {Kind::no_such_folder, folder, {}};
    if (!std::filesystem::is_directory(status)) return {Kind::not_a_folder, folder, {}};
    if (missing.size() == 4) return {Kind::no_files, folder, std::move(missing)};
    return {Kind::missing_files, folder, std::move(missing)};
}

TrainTestSets load_training_data(const TrainConfig& config) {
    if (config.dataset == "random") {
        // A separate test set of the same size: accuracy on it stays at chance, as it should.
        return {make_random_dataset(config.samples, config.input_size, random_classes, config.seed),
                make_random_dataset(config.samples, config.input_size, random_classes,
                                    config.seed + 1)};
    }
    return load_mnist_format(data_folder(config), config.limit_train, config.limit_test);
}

std::string data_fingerprint(const TrainConfig& config, const TrainTestSets& data) {
    const std::uint64_t checksum =
        first_samples_checksum(first_samples_checksum(0xcbf29ce484222325ull, data.train), data.test);
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(checksum));
    return "data=" + training_data_source(config) + "\n" +
           "training samples=" + std::to_string(data.train.count) + "\n" +
           "test samples=" + std::to_string(data.test.count) + "\n" +
           "sample shape=" + std::to_string(data.train.channels) + "x" +
           std::to_string(data.train.height) + "x" + std::to_string(data.train.width) + "\n" +
           "checksum of the first " + std::to_string(fingerprint_samples) +
           " samples=" + hex + "\n";
}

}  // namespace dp
