#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

// The engine's face (with record/, scaling/ and train/): what front ends
// include. Nothing here reaches backend/, data/ or devices/, even through the
// headers it includes (scripts/check-floors): devices as front ends meet
// them are config/device_choice.h.
#include "config/all_reduce_strategy.h"
#include "config/device_choice.h"
#include "nn/sample_shape.h"
#include "parallel/collective_timeout.h"

namespace dp {

struct ConfigField;

// Everything that defines a training run. Defaults are d2l 12.5's LeNet run
// (d2l 12.5: batch 256, lr 0.2, 10 epochs).
struct TrainConfig {
    std::string model = "lenet";
    int batch_size = 256;
    float lr = 0.2f;
    // SGD's weight decay (PyTorch's torch.optim.SGD weight_decay): each update
    // adds weight_decay x the parameters to their gradients. 0: none.
    float weight_decay = 0;
    int epochs = 10;  // 0 with load_path: evaluate the checkpoint only
    // Gradual warm-up (Goyal et al. 2017): the learning rate rises linearly
    // step by step over the first warmup_epochs epochs, reaching lr at their end.
    double warmup_epochs = 0;
    std::uint64_t seed = 0;
    std::string dataset = "fashion-mnist";  // or "mnist-format" (with data_dir), "random"
    std::string data_dir;  // empty: default_fashion_mnist_dir()
    int input_size = 5;    // "random": features per sample (PyTorch's DataParallel tutorial)
    int samples = 100;     // "random": samples in the training (and the test) set
    int limit_train = 0;   // 0: all; else the first N training images in file order
    int limit_test = 0;    // 0: all; else the first N test images in file order
    bool shuffle = true;
    std::string load_path;  // start from this checkpoint (empty: from the seed)
    std::string save_path;  // write a checkpoint here after every epoch (empty: none)
    std::string record_path;  // write the run record (JSON) here after every epoch (empty: none)
    std::string trace_path;   // write each device's step phases as a Chrome trace here (empty: none)
    int preview_samples = 0;  // test images whose predictions each epoch reports (the GUI's strip)
    // Measure every kernel choice again and overwrite this machine's kernel
    // cache (backend/kernel_choices.h). Off by default: runs with the same
    // settings then run the same kernels and give the same bits.
    bool retune = false;
    // A comparison's N-vs-1 drift (train/parameter_drift.h): the 1-device run
    // writes its parameters after each epoch into snapshot_dir; a run with
    // drift_from measures its own against them. Empty: neither.
    std::string snapshot_dir;
    std::string drift_from;

    // Data parallelism. batch_size is the global batch, split across devices.
    std::vector<std::string> devices;  // ids ("cpu:0"); empty: every device of the machine
    AllReduceStrategy allreduce = AllReduceStrategy::ring;  // config/all_reduce_strategy.h
    double bucket_mb = 25;             // gradient bucket cap (PyTorch DDP's default)
    // Gradient accumulation: each device's share of a batch goes through
    // forward and backward in this many micro-batches, whose gradients add up
    // before one all-reduce and one update. The update equals that of the
    // same global batch without accumulation (up to float rounding).
    int accumulate = 1;
    bool sync_bn = false;  // BatchNorm statistics over the global batch (nn.SyncBatchNorm)
    // What convolutions and linear layers multiply in: "fp32", "bf16" or
    // "tf32" (GPUs), backend/precision.h; the rest of the step stays float32.
    std::string precision = "fp32";
    // How long a device or rank waits for the others in one collective before
    // the run fails naming the ones that did not come: every rank's limit.
    double collective_timeout_s = CollectiveTimeout::default_seconds;
    // Stragglers (config/slow_devices.h): "cpu:1=1.5" makes device cpu:1
    // take 1.5 times its compute time each step. Empty: none.
    std::vector<std::string> slow_devices;
    // dp-train --profile-ops N: time every backend call of N steady steps
    // (from the second) and log a table per op family and layer
    // (backend/op_profiler.h). 0: off. A diagnostic, not a setting of the
    // run: not in config_fields().
    int profile_ops = 0;
};

// Throws dp::Error with a one-line message for impossible settings, a
// dp::SettingError (core/error.h) when one setting is the problem
// (non-positive batch size, learning rate or epochs, unknown model, a
// checkpoint or record path that cannot be written, ...).
// Settings are named as setting("name") (core/setting_ref.h) for each front
// end to word. This one resolves config.devices (select_devices reads
// /proc/cpuinfo and asks the CUDA runtime): callers that hold the resolved
// devices pass them instead, and resolve them once per run.
void validate(const TrainConfig& config);
void validate(const TrainConfig& config, const std::vector<DeviceInfo>& devices);
// validate(config), returning the devices it resolved.
std::vector<DeviceInfo> validate_and_select_devices(const TrainConfig& config);

// The part of validate() that holds on any machine: known model, data set
// and precision, every number within its range (config_fields.h), and the
// settings that exclude each other. It reads neither the devices nor the
// file system, so it also checks the settings of a run recorded elsewhere
// (an imported run record, record/run_record_rules.h).
void validate_settings(const TrainConfig& config);

// Throws dp::Error if this one setting is impossible whatever the others are:
// a number below its minimum, an unknown model, data set, all-reduce or
// precision. validate() checks every field so; a front end that takes one
// setting at a time (the workbench's options) checks each as it comes.
void validate_setting(const ConfigField& field, const TrainConfig& config);

// The problem validate_setting finds with this one setting, in the
// engine's words (settings as setting("name")); none if it has none. What a
// front end that shows each field's problem beside it calls for each field.
std::optional<std::string> setting_problem(const ConfigField& field, const TrainConfig& config);

// The values a text setting takes, from their registries (models, data
// sets, all-reduce strategies, precisions); empty for free text. What
// validate_setting holds a value to, and what a front end offers.
std::vector<std::string> field_choices(const ConfigField& field);

// Throws dp::Error unless config.model takes samples of `input` shape (the
// random set's vectors, or images of a size read from the data), naming the
// data and the model to choose instead.
void require_model_takes_data(const TrainConfig& config, const SampleShape& input, int classes);

// Throws dp::Error unless the global batch gives each of `ranks` ranks (one
// per device, in one process or across several) a sample.
void validate_ranks(const TrainConfig& config, int ranks);

// Throws dp::Error unless a training set of `samples` gives each of `ranks`
// ranks a sample, naming the setting that sized the set.
void validate_training_samples(const TrainConfig& config, int samples, int ranks);

// The settings every process of a multi-process run must share (model,
// data, batch, learning rate, seed, epochs, limits, shuffling, gradient
// buckets, BatchNorm mode), one "name=value" line each, in a fixed order.
// Devices and file paths are left out: they are each process's own.
std::string shared_settings(const TrainConfig& config);

// The first setting that differs between two shared_settings texts, as
// "batch_size (128 here, 256 on rank 0)" with `theirs` coming from
// `their_name`; empty if they agree.
std::string first_difference(const std::string& mine, const std::string& theirs,
                             const std::string& their_name);

}  // namespace dp
