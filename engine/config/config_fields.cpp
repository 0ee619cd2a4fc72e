#include "config/config_fields.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <algorithm>

#include "core/error.h"
#include "core/format.h"

namespace dp {
namespace {

using S = ConfigField::Scope;
constexpr unsigned kSharedRemembered = S::shared | S::remembered | S::required | S::command;
constexpr unsigned kEssential = kSharedRemembered | S::essential;

// TrainConfig's fields in the order --help, records and commands list them.
const std::vector<ConfigField> kFields = {
    {"model", "model", "--model", "NAME", "model to train, one of the Models below",
     HelpSection::training, &TrainConfig::model, kEssential},
    {"batch_size", "batch size", "--batch-size", "N", "global batch size, split across the devices",
     HelpSection::training, &TrainConfig::batch_size, kEssential, 0, true},
    {"lr", "learning rate", "--lr", "X", "SGD learning rate", HelpSection::training,
     &TrainConfig::lr, kEssential, 0, true},
    {"weight_decay", "weight decay", "--weight-decay", "X",
     "SGD weight decay: each update adds X times the weights to their\n"
     "gradients (PyTorch's SGD weight_decay, an L2 penalty of X/2 |w|^2)",
     HelpSection::training, &TrainConfig::weight_decay,
     S::shared | S::remembered | S::command | S::advanced, 0},
    {"epochs", "epochs", "--epochs", "N", "epochs (0 with --load: only evaluate the checkpoint)",
     HelpSection::training, &TrainConfig::epochs, kEssential, 0},
    {"warmup_epochs", "warm-up epochs", "--warmup-epochs", "X",
     "raise the learning rate linearly over the first X epochs (Goyal et al.'s\n"
     "gradual warm-up for large batches)",
     HelpSection::training, &TrainConfig::warmup_epochs, kSharedRemembered | S::advanced, 0},
    {"seed", "seed", "--seed", "N", "seed for initial weights and shuffling",
     HelpSection::training, &TrainConfig::seed, kEssential},
    {"dataset", "data set", "--dataset", "NAME",
     "fashion-mnist, mnist-format (any folder of MNIST-layout IDX files, with\n"
     "--data-dir) or random (PyTorch's DataParallel tutorial's: --input-size N features, --samples N,\n2 classes)",
     HelpSection::data, &TrainConfig::dataset, kSharedRemembered},
    {"data_dir", "data folder", "--data-dir", "DIR",
     "folder with the four MNIST-format IDX files\n"
     "(empty: $DP_DATA_DIR, else /usr/share/datasets/fashion-mnist)",
     HelpSection::data, &TrainConfig::data_dir, S::remembered | S::required | S::command},
    {"input_size", "input size", "--input-size", "N", "random data set: features per sample",
     HelpSection::data, &TrainConfig::input_size, kSharedRemembered, 1},
    {"samples", "samples", "--samples", "N", "random data set: samples in each of its sets",
     HelpSection::data, &TrainConfig::samples, kSharedRemembered, 1},
    {"limit_train", "training samples", "--limit-train", "N",
     "train on the first N training images only, 0 for all", HelpSection::data,
     &TrainConfig::limit_train, kSharedRemembered, 0},
    {"limit_test", "test samples", "--limit-test", "N",
     "evaluate on the first N test images only, 0 for all", HelpSection::data,
     &TrainConfig::limit_test, kSharedRemembered, 0},
    {"shuffle", "shuffling", "--no-shuffle", nullptr, "visit training images in file order",
     HelpSection::data, &TrainConfig::shuffle, S::shared | S::required | S::command},
    {"load_path", "checkpoint to load", "--load", "PATH",
     "start from a checkpoint (from --save or PyTorch); with --epochs 0, only\nevaluate it",
     HelpSection::records, &TrainConfig::load_path, S::command},
    {"devices", "devices", "--devices", "LIST",
     "cpu:0,cpu:1, cpu:all, cuda:0,cuda:1 or cuda:all, one kind per run\n"
     "(empty: every GPU, else every CPU device); cuda:0x2 runs 2 replicas\n"
     "on one GPU (data parallelism on a one-GPU machine)",
     HelpSection::parallelism, &TrainConfig::devices, S::remembered | S::required},
    {"allreduce", "all-reduce", "--allreduce", "NAME",
     "ring (reduce-scatter + all-gather), naive (d2l's: sum on device 0,\n"
     "copy back) or dataparallel (nn.DataParallel's: outputs gathered and\n"
     "gradients summed on device 0, which alone updates and broadcasts)",
     HelpSection::parallelism, &TrainConfig::allreduce, S::remembered | S::required | S::command},
    {"bucket_mb", "bucket size", "--bucket-mb", "X",
     "gradient bucket size in MB for the all-reduce", HelpSection::parallelism,
     &TrainConfig::bucket_mb, S::shared | S::remembered | S::required | S::command | S::advanced,
     0, true},
    {"accumulate", "micro-batches per update", "--accumulate", "K",
     "gradient accumulation: each device's share of a batch in K micro-batches,\n"
     "one all-reduce and one update per batch (1 device with K=N computes\n"
     "N devices' update)",
     // Not required: records from before gradient accumulation read as 1.
     HelpSection::parallelism, &TrainConfig::accumulate,
     S::shared | S::remembered | S::command | S::advanced, 1},
    {"precision", "precision", "--precision", "NAME",
     "fp32 (kernels as accurate as float32, by measurement), fp32-fast (the\n"
     "fastest float32 kernels, Winograd and FFT included, whatever they round),\n"
     "bf16 (bfloat16 convolutions and linear layers with float32 weights,\n"
     "loss and BatchNorm, as PyTorch's autocast; CPUs with AVX512_BF16 or AMX,\n"
     "and GPUs) or tf32 (TF32 tensor cores, GPUs only)",
     HelpSection::training, &TrainConfig::precision, S::shared | S::remembered | S::command},
    {"sync_bn", "synchronized BatchNorm", "--sync-bn", nullptr,
     "BatchNorm statistics over the global batch, not per device", HelpSection::parallelism,
     &TrainConfig::sync_bn, kSharedRemembered},
    {"collective_timeout_s", "collective timeout", "--collective-timeout", "SECONDS",
     "fail the run, naming the device or rank that did not come, when the\n"
     "others wait longer for it in one all-reduce or broadcast (at least\n"
     "0.01: no collective completes in less, so a shorter one always fails)",
     HelpSection::parallelism, &TrainConfig::collective_timeout_s,
     S::shared | S::remembered | S::command | S::advanced, 0.01},
    // Not shared or passed to ranks: a straggler slows a device of one
    // process's run (dp-train refuses it with --distributed).
    {"slow_devices", "slow device", "--slow-device", "ID=X",
     "a straggler: device ID computes, then waits until it has taken X\n"
     "times its compute time (X from 1 to 100), so the others wait for it\n"
     "at each all-reduce; repeat it, or list several: cpu:1=1.5,cpu:2=2",
     HelpSection::parallelism, &TrainConfig::slow_devices,
     S::remembered | S::advanced | S::repeatable},
    {"save_path", "checkpoint to save", "--save", "PATH",
     "write a checkpoint (safetensors, PyTorch state_dict names) after every\nepoch, atomically",
     HelpSection::records, &TrainConfig::save_path},
    {"record_path", "run record", "--record", "PATH",
     "write the run record (JSON: config, status, every epoch's metrics) after\n"
     "every epoch and at the end",
     HelpSection::records, &TrainConfig::record_path},
    {"trace_path", "step trace", "--trace", "PATH",
     "write each device's step phases (data, forward, backward, all-reduce,\n"
     "update) as Chrome trace JSON, each epoch's steps appended as it ends:\n"
     "open it in Perfetto (ui.perfetto.dev) or chrome://tracing; a failed\n"
     "write (a full disk) stops the trace with a warning, not the run",
     HelpSection::records, &TrainConfig::trace_path},
    {"preview_samples", "previewed test images", nullptr, nullptr, nullptr, HelpSection::records,
     &TrainConfig::preview_samples, 0, 0},
    {"retune", "re-measured kernels", "--retune", nullptr,
     "measure the fastest kernels for this machine again (they are measured\n"
     "once and kept in kernel-choices.tsv beside the history, so repeated runs\n"
     "give the same bits)",
     HelpSection::records, &TrainConfig::retune},
    {"snapshot_dir", "parameter snapshots", nullptr, nullptr, nullptr, HelpSection::records,
     &TrainConfig::snapshot_dir},
    {"drift_from", "drift reference", nullptr, nullptr, nullptr, HelpSection::records,
     &TrainConfig::drift_from},
};

template <typename Number>
std::string number_text(Number value) {
    char text[32];
    return std::string(text, std::to_chars(text, text + sizeof text, value).ptr);
}

template <typename Number>
Number parse_number(std::string_view text) {
    Number value{};
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || text.empty())
        throw Error("'" + std::string(text) + "' is not a valid number" +
                    (error == std::errc::result_out_of_range ? " (out of range)"
                     : std::is_integral_v<Number>            ? " (a whole number)"
                                                             : ""));
    // A subnormal (1e-320) has lost its precision, and code that reads the
    // value back as text (strtod, std::stod) reports it as out of range.
    if constexpr (std::is_floating_point_v<Number>)
        if (std::fpclassify(value) == FP_SUBNORMAL)
            throw Error("'" + std::string(text) + "' is too close to 0 (out of range): use 0 or "
                        "a number of at least " + number_text(std::numeric_limits<Number>::min()));
    return value;
}

std::vector<std::string> split_list(std::string_view text) {
    std::vector<std::string> items;
    if (text.empty()) return items;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto comma = std::min(text.find(',', start), text.size());
        items.emplace_back(text.substr(start, comma - start));
        start = comma + 1;
    }
    return items;
}

template <typename... F>
struct Overloaded : F... {
    using F::operator()...;
};
// C++20 deduces this itself; clang 14 (the fuzz build) still needs the guide.
template <typename... F>
Overloaded(F...) -> Overloaded<F...>;

}  // namespace

const std::vector<ConfigField>& config_fields() { return kFields; }

const ConfigField& config_field(std::string_view name) {
    for (const ConfigField& field : kFields)
        if (name == field.name) return field;
    throw std::logic_error("no setting named " + std::string(name));
}

FieldKind field_kind(const ConfigField& field) {
    return std::visit(
        Overloaded{[](int TrainConfig::*) { return FieldKind::integer; },
                   [](std::uint64_t TrainConfig::*) { return FieldKind::uint64; },
                   [](float TrainConfig::*) { return FieldKind::real32; },
                   [](double TrainConfig::*) { return FieldKind::real64; },
                   [](bool TrainConfig::*) { return FieldKind::boolean; },
                   [](std::string TrainConfig::*) { return FieldKind::text; },
                   [](std::vector<std::string> TrainConfig::*) { return FieldKind::text_list; },
                   [](AllReduceStrategy TrainConfig::*) { return FieldKind::text; }},
        field.member);
}

std::string field_text(const ConfigField& field, const TrainConfig& config) {
    return std::visit(
        Overloaded{[&](bool TrainConfig::*m) -> std::string { return config.*m ? "true" : "false"; },
                   [&](std::string TrainConfig::*m) { return config.*m; },
                   [&](AllReduceStrategy TrainConfig::*m) -> std::string {
                       return all_reduce_strategy_name(config.*m);
                   },
                   [&](std::vector<std::string> TrainConfig::*m) {
                       std::string text;
                       for (const auto& item : config.*m) text += (text.empty() ? "" : ",") + item;
                       return text;
                   },
                   [&](auto m) { return number_text(config.*m); }},
        field.member);
}

void set_field_text(const ConfigField& field, TrainConfig& config, std::string_view text) {
    std::visit(
        Overloaded{[&](bool TrainConfig::*m) {
                       if (text == "true" || text == "1") config.*m = true;
                       else if (text == "false" || text == "0") config.*m = false;
                       else throw Error("'" + std::string(text) + "' is not true or false");
                   },
                   [&](std::string TrainConfig::*m) { config.*m = std::string(text); },
                   [&](AllReduceStrategy TrainConfig::*m) { config.*m = parse_all_reduce_strategy(text); },
                   [&](std::vector<std::string> TrainConfig::*m) { config.*m = split_list(text); },
                   [&]<typename Number>(Number TrainConfig::*m) {
                       config.*m = parse_number<Number>(text);
                   }},
        field.member);
}

std::optional<double> field_number(const ConfigField& field, const TrainConfig& config) {
    return std::visit(
        Overloaded{[&](bool TrainConfig::*) -> std::optional<double> { return std::nullopt; },
                   [&](std::string TrainConfig::*) -> std::optional<double> { return std::nullopt; },
                   [&](AllReduceStrategy TrainConfig::*) -> std::optional<double> {
                       return std::nullopt;
                   },
                   [&](std::vector<std::string> TrainConfig::*) -> std::optional<double> {
                       return std::nullopt;
                   },
                   [&](auto m) -> std::optional<double> { return double(config.*m); }},
        field.member);
}

RangeBreak range_break(const ConfigField& field, const TrainConfig& config) {
    const std::optional<double> value = field_number(field, config);
    if (!value) return RangeBreak::none;
    if (!std::isfinite(*value)) return RangeBreak::not_finite;
    const bool below = field.min_exclusive ? !(*value > field.min) : !(*value >= field.min);
    return below ? RangeBreak::below_minimum : RangeBreak::none;
}

bool has_default_value(const ConfigField& field, const TrainConfig& config) {
    static const TrainConfig defaults;
    return field_text(field, config) == field_text(field, defaults);
}

std::string render_settings(std::string message, std::string (*name_of)(const ConfigField&)) {
    for (const ConfigField& field : kFields) {
        const std::string marker = setting(field.name);
        const std::string name = name_of(field);
        for (auto at = message.find(marker); at != std::string::npos;
             at = message.find(marker, at + name.size()))
            message.replace(at, marker.size(), name);
    }
    return message;
}

std::string flag_or_label(const ConfigField& field) {
    return field.flag ? field.flag : field.label;
}

}  // namespace dp
