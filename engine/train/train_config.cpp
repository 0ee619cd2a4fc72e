#include "train/train_config.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "backend/backend_factory.h"
#include "backend/precision.h"
#include "core/error.h"
#include "core/format.h"
#include "devices/device.h"
#include "train/run_outputs.h"
#include "models/model_registry.h"
#include "parallel/communicator.h"
#include "train/config_fields.h"
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

// "learning rate must be positive (got -0.1)": a numeric field below its table minimum.
void validate_ranges(const TrainConfig& config) {
    for (const ConfigField& field : config_fields()) {
        const FieldKind kind = field_kind(field);
        if (kind != FieldKind::integer && kind != FieldKind::real32 && kind != FieldKind::real64)
            continue;
        const double value = std::stod(field_text(field, config));
        const bool real = kind != FieldKind::integer;
        const bool below = field.min_exclusive ? !(value > field.min) : !(value >= field.min);
        if (!below && !(real && !std::isfinite(value))) continue;
        const std::string bound = field.min_exclusive && field.min == 0
                                      ? (real ? "a positive number" : "positive")
                                  : field.min == 0 ? "0 or more"
                                                   : format("at least %g", field.min);
        throw Error(std::string(field.label) + " must be " + bound +
                    " (got " + field_text(field, config) + ")");
    }
}

// The random data set's vectors go only into a model without image layers.
void validate_model_for_data(const TrainConfig& config) {
    if (config.dataset != "random") return;
    try {
        // Declaring the layers checks every shape without allocating weights.
        build_model(config.model, {1, 1, config.input_size}, 2)->declare();
    } catch (const Error& e) {
        throw Error(model_info(config.model).title + " cannot take the random data set (" +
                    std::to_string(config.input_size) + " features per sample): " + e.what() +
                    ". Choose " + model_info("linear").title + " for " + setting("model") +
                    ", or an image data set");
    }
}

}  // namespace

void validate(const TrainConfig& config) { validate(config, select_devices(config.devices)); }

std::vector<DeviceInfo> validate_and_select_devices(const TrainConfig& config) {
    std::vector<DeviceInfo> devices = select_devices(config.devices);
    validate(config, devices);
    return devices;
}

void validate(const TrainConfig& config, const std::vector<DeviceInfo>& devices) {
    validate_settings(config);
    require_known("all-reduce strategy", config.allreduce, thread_communicator_strategies());
    validate_ranks(config, int(devices.size()));
    for (const DeviceInfo& device : devices)
        if (const std::string refusal =
                precision_refusal(device, precision_named(config.precision));
            !refusal.empty())
            throw Error(refusal);
    // Found now, not after the first epoch trained.
    check_run_outputs(config);
}

void validate_settings(const TrainConfig& config) {
    require_known("model", config.model, model_names());
    require_known("dataset", config.dataset, dataset_names());
    require_known("precision", config.precision, precision_names());
    validate_ranges(config);
    if (config.epochs == 0 && config.load_path.empty())
        throw Error("epochs must be positive, or 0 with " + setting("load_path") +
                    " to evaluate a checkpoint");
    if (config.dataset == "mnist-format" && config.data_dir.empty())
        throw Error("the mnist-format data set needs " + setting("data_dir") +
                    " (the folder with the four IDX files)");
    validate_model_for_data(config);
    if (config.sync_bn && config.accumulate > 1)
        throw Error(setting("sync_bn") + " takes BatchNorm statistics over the whole global batch "
                    "at once, so it does not combine with " + setting("accumulate") +
                    " above 1: choose one");
}

void validate_ranks(const TrainConfig& config, int ranks) {
    if (config.batch_size < ranks)
        throw Error("batch size " + std::to_string(config.batch_size) + " is smaller than the " +
                    std::to_string(ranks) +
                    " devices: every device needs a sample; raise the batch size or use fewer devices");
}

std::string shared_settings(const TrainConfig& config) {
    std::string text;
    for (const ConfigField& field : config_fields())
        if (field.scope & ConfigField::shared)
            text += std::string(field.name) + "=" + field_text(field, config) + "\n";
    return text;
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
