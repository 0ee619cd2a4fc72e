#include "train/train_config.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "core/error.h"
#include "core/format.h"
#include "devices/device.h"
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

}  // namespace

void validate(const TrainConfig& config) {
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
    validate_ranks(config, int(select_devices(config.devices).size()));
    require_known("model", config.model, model_names());
    require_known("dataset", config.dataset, dataset_names());
    if (config.dataset == "mnist-format" && config.data_dir.empty())
        throw Error("--dataset mnist-format needs --data-dir, the folder with the four IDX files");
    if (config.dataset == "random" && (config.input_size <= 0 || config.samples <= 0))
        throw Error("--input-size and --samples must be positive for --dataset random");
}

void validate_ranks(const TrainConfig& config, int ranks) {
    if (config.batch_size < ranks)
        throw Error("batch size " + std::to_string(config.batch_size) + " is smaller than the " +
                    std::to_string(ranks) +
                    " devices: every device needs a sample; raise the batch size or use fewer devices");
}

std::string shared_settings(const TrainConfig& c) {
    const std::string lr = format("%.9g", double(c.lr));  // every float digit
    const std::string bucket_mb = format("%.17g", c.bucket_mb);
    return "model=" + c.model + "\ndataset=" + c.dataset +
           "\ninput_size=" + std::to_string(c.input_size) +
           "\nsamples=" + std::to_string(c.samples) +
           "\nlimit_train=" + std::to_string(c.limit_train) +
           "\nlimit_test=" + std::to_string(c.limit_test) +
           "\nbatch_size=" + std::to_string(c.batch_size) + "\nlr=" + lr +
           "\nepochs=" + std::to_string(c.epochs) + "\nseed=" + std::to_string(c.seed) +
           "\nshuffle=" + (c.shuffle ? "true" : "false") + "\nbucket_mb=" + bucket_mb +
           "\nsync_bn=" + (c.sync_bn ? "true" : "false") + "\n";
}

std::string first_difference(const std::string& mine, const std::string& theirs,
                             const std::string& their_name) {
    const std::string other_version = "settings (" + their_name + " runs another dp-train version)";
    std::istringstream my_lines(mine), their_lines(theirs);
    std::string my_line, their_line;
    while (std::getline(my_lines, my_line)) {
        if (!std::getline(their_lines, their_line)) return other_version;
        if (my_line == their_line) continue;
        const auto equals = my_line.find('=');
        const std::string name = my_line.substr(0, equals);
        if (!their_line.starts_with(name + "=")) return other_version;
        return name + " (" + my_line.substr(equals + 1) + " here, " +
               their_line.substr(equals + 1) + " on " + their_name + ")";
    }
    return std::getline(their_lines, their_line) ? other_version : "";
}

}  // namespace dp
