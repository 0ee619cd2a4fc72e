#include "train/training_data.h"

#include "data/random_dataset.h"

namespace dp {
namespace {

constexpr int random_classes = 2;  // seed 004's output_size

std::filesystem::path data_folder(const TrainConfig& config) {
    return config.data_dir.empty() ? default_fashion_mnist_dir()
                                   : std::filesystem::path(config.data_dir);
}

}  // namespace

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

TrainTestSets load_training_data(const TrainConfig& config) {
    if (config.dataset == "random") {
        // A separate test set of the same size: accuracy on it stays at chance, as it should.
        return {make_random_dataset(config.samples, config.input_size, random_classes, config.seed),
                make_random_dataset(config.samples, config.input_size, random_classes,
                                    config.seed + 1)};
    }
    return load_mnist_format(data_folder(config), config.limit_train, config.limit_test);
}

}  // namespace dp
