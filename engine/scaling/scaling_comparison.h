#pragma once

#include <string>
#include <vector>

#include "core/machine_load.h"
#include "config/device_choice.h"
#include "config/train_config.h"
#include "record/run_metrics.h"

namespace dp {

// d2l 12.5-12.6's 1-vs-N experiment: the same configuration on 1 device and on N.
// Without scaling, the first run writes its parameters after every epoch
// into `snapshot_dir` (when not empty) and the others measure their drift
// from them (train/parameter_drift.h).
// With scale_batch_and_lr, the global batch and the learning rate grow with
// N (the linear scaling rule, d2l 12.6: 256 / 0.1 on one GPU, 512 / 0.2 on two).
// The runs use the first N of `base.devices` (all devices if empty); each
// keeps the slow devices (base.slow_devices) it has, and dp::Error says so
// when the largest lacks one.
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
// rule), and the same straggler (config/slow_devices.h) on the baseline's
// device: a slow device the baseline lacks leaves it a fair baseline, for
// a comparison labelled as one with a straggler. Otherwise the first
// difference, in words: "epochs: 3 here, 5 there".
std::string baseline_mismatch(const TrainConfig& baseline, const TrainConfig& run);

// The 1-device settings a fair baseline for `run` has: "batch 128 and lr 0.1,
// or batch 64 and lr 0.05 (scaled to 2 devices)".
std::string baseline_batch_rule(const TrainConfig& run);

struct ComparisonRow {
    int devices = 0;
    int global_batch = 0;
    double lr = 0;
    // The median of the steady epochs (record/run_metrics.h: EpochTime); their range below.
    double seconds_per_epoch = 0;
    double speedup = 0;     // throughput over the first run's
    double efficiency = 0;  // speedup / (devices / first run's devices)
    double final_test_acc = 0;
    // After the last epoch, the parameters' relative distance from the first
    // run's (EpochMetrics::parameter_drift); NaN for the first run or when not measured.
    double parameter_drift = 0;
    double seconds_min = 0, seconds_max = 0;  // the steady epochs' range
    // The speedup the two runs' steady epochs allow at their extremes: the
    // baseline's fastest over this run's slowest to the reverse. What a
    // comparison run once can say of its own noise; NaN when either run has
    // a single steady epoch (no spread was measured: SpeedupVerdict).
    double speedup_min = 0, speedup_max = 0;
    // How busy the rest of the machine was while this run trained (unknown
    // unless the caller measured it: dp-train --compare does).
    MachineLoad load;
};

// What a speedup's range lets a front end say. "Faster" only when the whole
// range is above 1, "slower" only when it is all below; a range that holds 1
// says "no measurable difference", whatever side the median fell on (a
// median of 0.92x with a range of 0.89-1.24 is no evidence of slowing down).
// No range at all (NaN: one run each with a single steady epoch, whose
// spread nothing measured) says "too few epochs to tell": a 1.05x from two
// single epochs is no evidence of anything.
enum class SpeedupVerdict { faster, slower, no_measurable_difference, too_few_epochs };
SpeedupVerdict speedup_verdict(double min, double max);
// "faster", "slower", "no measurable difference", "too few epochs to tell"
const char* speedup_verdict_text(SpeedupVerdict verdict);
// Whether [min, max] is a measured range (not NaN: see SpeedupVerdict).
inline bool has_speedup_range(double min, double max) { return min <= max; }
// "1.49-2.05", or "no range" where there is none (the verdict says why).
std::string speedup_range_text(double min, double max);

// Throughput is epochs over the steady epochs' median time, not a mean of
// rates; the first epoch (kernel tuning, warm-up) is left out where there are others. `runs[i]` ran
// `configs[i]`; the first run is the baseline.
std::vector<ComparisonRow> compare_runs(const std::vector<TrainConfig>& configs,
                                        const std::vector<RunSummary>& runs);

// A plain-text table of the rows, one line each, with a header.
// A comparison repeated R times, its device counts alternating (1, N, 1, N,
// ...) so that drifting machine load hits each count alike: each count's
// speedup as the median of its R speedups, with their range. One run per
// count gave 0.73x to 2.11x for the same LeNet comparison within an hour.
struct RepeatedSpeedup {
    int devices = 0;
    double median = 0, min = 0, max = 0;
    int repeats = 0;
    SpeedupVerdict verdict() const { return speedup_verdict(min, max); }
};
// The median and range of one device count's speedups, one per repeat.
RepeatedSpeedup summarize_speedups(int devices, std::vector<double> speedups);
// `repeats[r]` is repeat r's compare_runs rows, the same counts in each. For
// a comparison run once, the range is its row's (speedup_min, speedup_max):
// the one run's steady epochs, the only spread there is.
std::vector<RepeatedSpeedup> repeated_speedups(const std::vector<std::vector<ComparisonRow>>& repeats);
// "2 devices: 1.95x (1.88-2.02) over 3 repeats: faster", a line each; the
// first run, the baseline, is left out.
std::string format_repeated_speedups(const std::vector<RepeatedSpeedup>& speedups);

std::string format_comparison(const std::vector<ComparisonRow>& rows);

}  // namespace dp
