#include "config/train_config.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <sstream>
#include <string>

#include "backend/backend_factory.h"
#include "backend/kernel_choices.h"
#include "backend/precision.h"
#include "core/error.h"
#include "core/format.h"
#include "devices/device.h"
#include "config/run_outputs.h"
#include "models/model_registry.h"
#include "config/config_fields.h"
#include "config/training_data.h"
#include "config/slow_devices.h"

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

std::vector<std::string> strategy_names() {
    std::vector<std::string> names;
    for (const AllReduceStrategy strategy : run_strategies())
        names.push_back(all_reduce_strategy_name(strategy));
    return names;
}

std::vector<std::string> model_names() {
    std::vector<std::string> names;
    for (const auto& info : model_registry()) names.push_back(info.name);
    return names;
}

// "{lr} must be positive (got -0.1)": a numeric field below its table minimum.
void validate_range(const ConfigField& field, const TrainConfig& config) {
    if (range_break(field, config) == RangeBreak::none) return;
    const bool real = field_kind(field) != FieldKind::integer && field_kind(field) != FieldKind::uint64;
    const std::string bound = field.min_exclusive && field.min == 0
                                  ? (real ? "a positive number" : "positive")
                              : field.min == 0 ? "0 or more"
                                               : format("at least %g", field.min);
    throw Error(setting(field.name) + " must be " + bound + " (got " +
                field_text(field, config) + ")");
}

// An evaluation-only run (epochs 0) trains no step: a checkpoint, step trace
// or epoch record asked of it would be the loaded file again, or empty.
void refuse_training_outputs(const TrainConfig& config) {
    for (const char* output : {"save_path", "trace_path", "record_path"})
        if (!field_text(config_field(output), config).empty())
            throw SettingError(output, setting("epochs") + " 0 only evaluates " + setting("load_path") +
                        ": nothing trains, so " + setting(output) +
                        " would keep nothing; leave it out, or train 1 epoch or more");
}

// Run records keep whole numbers as JSON integers, which readers (Qt's) hold
// exact only up to 2^63 - 1: a larger seed could not be read back as run.
void validate_recordable(const ConfigField& field, const TrainConfig& config) {
    constexpr auto largest = std::uint64_t(std::numeric_limits<std::int64_t>::max());
    if (field_kind(field) != FieldKind::uint64) return;
    if (config.*std::get<std::uint64_t TrainConfig::*>(field.member) <= largest) return;
    throw Error(setting(field.name) + " must be at most " + std::to_string(largest) +
                " (2^63 - 1, the largest whole number a run record keeps; got " +
                field_text(field, config) + ")");
}

// The names a text setting must be one of, as "model", {"lenet", ...}; nothing for free text.
std::optional<std::pair<std::string, std::vector<std::string>>> known_names(
    const ConfigField& field) {
    const std::string name = field.name;
    if (name == "model") return std::pair{std::string("model"), model_names()};
    if (name == "dataset") return std::pair{std::string("dataset"), dataset_names()};
    if (name == "allreduce")
        return std::pair{std::string("all-reduce strategy"), strategy_names()};
    if (name == "precision") return std::pair{std::string("precision"), precision_names()};
    return std::nullopt;
}

// The random data set's vectors go only into a model without image layers.
void validate_model_for_data(const TrainConfig& config) {
    if (config.dataset == "random")
        require_model_takes_data(config, {1, 1, config.input_size}, 2);
}

// Every slow device (config/slow_devices.h) is one the run trains on: a
// straggler elsewhere would slow nothing.
void validate_slow_devices(const TrainConfig& config, const std::vector<DeviceInfo>& devices) {
    for (const SlowDevice& slow : parse_slow_devices(config.slow_devices)) {
        if (std::any_of(devices.begin(), devices.end(),
                        [&](const DeviceInfo& d) { return d.id == slow.device; }))
            continue;
        std::string ids;
        for (const DeviceInfo& device : devices) ids += (ids.empty() ? "" : ", ") + device.id;
        std::string message = setting("slow_devices");
        message += " names " + slow.device + ", which this run does not train on (its devices: ";
        message += ids + "): name one of them, or leave " + setting("slow_devices") + " out";
        throw SettingError("slow_devices", message);
    }
}

// select_devices(config.devices), its refusals being about the devices setting.
std::vector<DeviceInfo> configured_devices(const TrainConfig& config) {
    try {
        return select_devices(config.devices);
    } catch (const SettingError&) {
        throw;
    } catch (const Error& error) {
        throw SettingError("devices", error.what());
    }
}

// The smallest N at which `model` takes NxN images of `channels` channels,
// none up to 1024. Every model treats height and width alike (square
// kernels and windows) and a larger input never shrinks a layer's output,
// so images take the model exactly when both sides are at least N.
std::optional<int> smallest_square_side(const std::string& model, int channels, int classes) {
    for (int side = 1; side <= 1024; ++side) {
        try {
            build_model(model, {channels, side, side}, classes)->declare();
            return side;
        } catch (const Error&) {
        }
    }
    return std::nullopt;
}

}  // namespace

std::vector<std::string> field_choices(const ConfigField& field) {
    const auto names = known_names(field);
    return names ? names->second : std::vector<std::string>{};
}

void validate_setting(const ConfigField& field, const TrainConfig& config) {
    try {
        if (const auto names = known_names(field))
            require_known(names->first, field_text(field, config), names->second);
        validate_range(field, config);
        validate_recordable(field, config);
        if (std::string_view(field.name) == "slow_devices") parse_slow_devices(config.slow_devices);
    } catch (const SettingError&) {
        throw;
    } catch (const Error& error) {
        throw SettingError(field.name, error.what());
    }
}

std::optional<std::string> setting_problem(const ConfigField& field, const TrainConfig& config) {
    try {
        validate_setting(field, config);
    } catch (const Error& error) {
        return error.what();
    }
    return std::nullopt;
}

void validate(const TrainConfig& config) { validate(config, configured_devices(config)); }

std::vector<DeviceInfo> validate_and_select_devices(const TrainConfig& config) {
    std::vector<DeviceInfo> devices = configured_devices(config);
    validate(config, devices);
    return devices;
}

void validate(const TrainConfig& config, const std::vector<DeviceInfo>& devices) {
    validate_settings(config);
    kernel_tuning_from_environment();  // a bad DP_KERNEL_TUNING fails before the run starts
    if (config.epochs == 0) refuse_training_outputs(config);
    if (const std::string mixed = device_kinds_problem(devices); !mixed.empty())
        throw SettingError("devices", mixed);
    validate_ranks(config, int(devices.size()));
    validate_slow_devices(config, devices);
    // The training set's size where the settings fix it; the data's own size is checked once read.
    if (const int planned = config.dataset == "random" ? config.samples : config.limit_train;
        planned > 0)
        validate_training_samples(config, planned, int(devices.size()));
    for (const DeviceInfo& device : devices)
        if (const std::string refusal =
                precision_refusal(device, precision_named(config.precision));
            !refusal.empty())
            throw SettingError("precision", refusal);
    // Found now, not after the first epoch trained.
    check_run_outputs(config);
}

void validate_settings(const TrainConfig& config) {
    for (const ConfigField& field : config_fields()) validate_setting(field, config);
    if (config.epochs == 0 && config.load_path.empty())
        throw SettingError("epochs", setting("epochs") + " must be positive, or 0 with " + setting("load_path") +
                    " to evaluate a checkpoint");
    if (config.dataset == "mnist-format" && config.data_dir.empty())
        throw SettingError("data_dir", "the mnist-format data set needs " + setting("data_dir") +
                    " (the folder with the four IDX files)");
    validate_model_for_data(config);
    if (config.sync_bn && config.accumulate > 1)
        throw SettingError("sync_bn", setting("sync_bn") + " takes BatchNorm statistics over the whole global batch "
                    "at once, so it does not combine with " + setting("accumulate") +
                    " above 1: choose one");
    if (config.allreduce == AllReduceStrategy::dataparallel && config.accumulate > 1)
        throw SettingError("accumulate", setting("allreduce") + " dataparallel gathers a whole batch's outputs "
                    "on device 0 each step, as nn.DataParallel does, so it does not combine with " +
                    setting("accumulate") + " above 1: choose one");
}

void require_model_takes_data(const TrainConfig& config, const SampleShape& input, int classes) {
    try {
        // Declaring the layers checks every shape without allocating weights.
        build_model(config.model, input, classes)->declare();
    } catch (const Error& e) {
        const std::string& title = model_info(config.model).title;
        const std::string linear = "Choose " + model_info("linear").title + " for " + setting("model");
        if (config.dataset == "random")
            throw SettingError("model", title + " cannot take the random data set (" + std::to_string(input.width) +
                                            " features per sample): " + e.what() + ". " + linear +
                                            ", or an image data set");
        const std::string images = format("the %dx%d images of %s", input.height, input.width,
                                          training_data_source(config).c_str());
        // The layer's own words ("fc1: expects 0 input features") name no size
        // a user can act on; the smallest the model takes does.
        const std::optional<int> least = smallest_square_side(config.model, input.channels, classes);
        if (!least || (input.height >= *least && input.width >= *least))  // not its size
            throw SettingError("model", title + " cannot take " + images + ": " + e.what() + ". " + linear +
                                            " (it takes any size)");
        throw SettingError("model", format("%s cannot take %s: it takes images of at least %dx%d pixels. %s "
                                           "(it takes any size), or images of at least %dx%d",
                                           title.c_str(), images.c_str(), *least, *least, linear.c_str(),
                                           *least, *least));
    }
}

void validate_ranks(const TrainConfig& config, int ranks) {
    if (config.batch_size < ranks)
        throw SettingError("batch_size", "batch size " + std::to_string(config.batch_size) + " is smaller than the " +
                    std::to_string(ranks) +
                    " devices: every device needs a sample; raise the batch size or use fewer devices");
}

void validate_training_samples(const TrainConfig& config, int samples, int ranks) {
    if (samples >= ranks) return;
    const std::string fix = config.dataset == "random" ? "raise " + setting("samples")
                            : config.limit_train > 0  ? "raise " + setting("limit_train")
                                                      : std::string("use a larger data set");
    const char* sized_by = config.dataset == "random" ? "samples"
                           : config.limit_train > 0  ? "limit_train"
                                                     : "dataset";
    throw SettingError(sized_by, format("%d training sample%s cannot give each of the %d devices one: %s or use "
                       "fewer devices",
                       samples, samples == 1 ? "" : "s", ranks, fix.c_str()));
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
