#pragma once

#include <string>
#include <vector>

#include "devices/device.h"
#include "config/train_config.h"
#include "record/run_metrics.h"

namespace dp {

// d2l 12.5-12.6's 1-vs-N experiment: the same configuration on 1 device and on N.
// Without scaling, the first run writes its parameters after every epoch
// into `snapshot_dir` (when not empty) and the others measure their drift
// from them (train/parameter_drift.h).
// With scale_batch_and_lr, the global batch and the learning rate grow with
// N (the linear scaling rule, d2l 12.6: 256 / 0.1 on one GPU, 512 / 0.2 on two).
// The runs use the first N of `base.devices` (all devices if empty).
std::vector<TrainConfig> comparison_configs(const TrainConfig& base,
                                            const std::vector<int>& device_counts,
                                            bool scale_batch_and_lr,
                                            const std::string& snapshot_dir = {});
// The same with base.devices as the caller resolved them (select_devices), so
// that a comparison reads the machine's devices once; run i is on the first
// configs[i].devices.size() of `devices`.
std::vector<TrainConfig> comparison_configs(const TrainConfig& base,
                                            const std::vector<DeviceInfo>& devices,
                                            const std::vector<int>& device_counts,
                                            bool scale_batch_and_lr,
                                            const std::string& snapshot_dir = {});

// Empty when `baseline`, a 1-device run, is a fair baseline for `run`: the
// same model, data, samples, epochs, seed and shuffling, and either the same
// global batch and learning rate (strong scaling) or both scaled with run's
// device count as comparison_configs does (weak scaling, the linear scaling
// rule). Otherwise the first difference, in words: "epochs: 3 here, 5 there".
std::string baseline_mismatch(const TrainConfig& baseline, const TrainConfig& run);

// The 1-device settings a fair baseline for `run` has: "batch 128 and lr 0.1,
// or batch 64 and lr 0.05 (scaled to 2 devices)".
std::string baseline_batch_rule(const TrainConfig& run);

struct ComparisonRow {
    int devices = 0;
    int global_batch = 0;
    double lr = 0;
    double seconds_per_epoch = 0;
    double speedup = 0;     // throughput over the first run's
    double efficiency = 0;  // speedup / (devices / first run's devices)
    double final_test_acc = 0;
    // After the last epoch, the parameters' relative distance from the first
    // run's (EpochMetrics::parameter_drift); NaN for the first run or when not measured.
    double parameter_drift = 0;
};

// Throughput is samples over total time, not a mean of rates. `runs[i]` ran
// `configs[i]`; the first run is the baseline.
std::vector<ComparisonRow> compare_runs(const std::vector<TrainConfig>& configs,
                                        const std::vector<RunSummary>& runs);

// A plain-text table of the rows, one line each, with a header.
std::string format_comparison(const std::vector<ComparisonRow>& rows);

}  // namespace dp
