#include "train/run_validation.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.h"
#include "models/model_registry.h"
#include "parallel/communicator.h"
#include "train/training_data.h"

namespace dp {
namespace {

// Throws "unknown <what> '<value>' (known: a, b, ...)" unless value is one of names.
void require_known(const std::string& what, const std::string& value,
                   const std::vector<std::string>& names) {
    if (std::find(names.begin(), names.end(), value) != names.end()) return;
    std::string known;
    for (const auto& name : names) known += (known.empty() ? "" : ", ") + name;
    throw Error("unknown " + what + " '" + value + "' (known: " + known + ")");
}

std::vector<std::string> model_names() {
    std::vector<std::string> names;
    for (const auto& info : model_registry()) names.push_back(info.name);
    return names;
}

// validate(config) of train_config.cpp, check for check; `devices()` gives
// the run's devices when the device count is checked.
template <typename Devices>
void validate_with(const TrainConfig& config, Devices&& devices) {
    if (config.batch_size <= 0)
        throw Error("batch size must be positive (got " + std::to_string(config.batch_size) + ")");
    if (!(config.lr > 0) || !std::isfinite(config.lr))
        throw Error("learning rate must be a positive number (got " + std::to_string(config.lr) +
                    ")");
    if (config.epochs < 0 || (config.epochs == 0 && config.load_path.empty()))
        throw Error("epochs must be positive, or 0 with a checkpoint to evaluate it (got " +
                    std::to_string(config.epochs) + ")");
    if (config.limit_train < 0 || config.limit_test < 0)
        throw Error("sample limits must be 0 (all) or positive");
    if (!(config.bucket_mb > 0))
        throw Error("bucket size must be positive (got " + std::to_string(config.bucket_mb) + " MB)");
    require_known("all-reduce strategy", config.allreduce, thread_communicator_strategies());
    validate_ranks(config, int(devices().size()));
    require_known("model", config.model, model_names());
    require_known("dataset", config.dataset, dataset_names());
    if (config.dataset == "mnist-format" && config.data_dir.empty())
        throw Error("--dataset mnist-format needs --data-dir, the folder with the four IDX files");
    if (config.dataset == "random" && (config.input_size <= 0 || config.samples <= 0))
        throw Error("--input-size and --samples must be positive for --dataset random");
}

}  // namespace

void validate(const TrainConfig& config, const std::vector<DeviceInfo>& devices) {
    validate_with(config, [&]() -> const std::vector<DeviceInfo>& { return devices; });
}

std::vector<DeviceInfo> validate_and_select_devices(const TrainConfig& config) {
    std::vector<DeviceInfo> devices;
    validate_with(config, [&]() -> const std::vector<DeviceInfo>& {
        devices = select_devices(config.devices);
        return devices;
    });
    return devices;
}

}  // namespace dp
