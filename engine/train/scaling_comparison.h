#pragma once

#include <string>
#include <vector>

#include "train/train_config.h"
#include "train/train_observer.h"

namespace dp {

// The seeds' 1-vs-N experiment: the same configuration on 1 device and on N.
// With scale_batch_and_lr, the global batch and the learning rate grow with
// N (the linear scaling rule, seed 000: 256 / 0.1 on one GPU, 512 / 0.2 on two).
// The runs use the first N of `base.devices` (all devices if empty).
std::vector<TrainConfig> comparison_configs(const TrainConfig& base,
                                            const std::vector<int>& device_counts,
                                            bool scale_batch_and_lr);

struct ComparisonRow {
    int devices = 0;
    int global_batch = 0;
    double lr = 0;
    double seconds_per_epoch = 0;
    double speedup = 0;     // throughput over the first run's
    double efficiency = 0;  // speedup / (devices / first run's devices)
    double final_test_acc = 0;
};

// Throughput is samples over total time, not a mean of rates. `runs[i]` ran
// `configs[i]`; the first run is the baseline.
std::vector<ComparisonRow> compare_runs(const std::vector<TrainConfig>& configs,
                                        const std::vector<RunSummary>& runs);

// A plain-text table of the rows, one line each, with a header.
std::string format_comparison(const std::vector<ComparisonRow>& rows);

}  // namespace dp
