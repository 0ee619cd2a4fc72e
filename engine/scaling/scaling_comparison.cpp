#include "scaling/scaling_comparison.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>

#include "config/slow_devices.h"
#include "core/checked_math.h"
#include "core/error.h"
#include "core/format.h"
#include "core/median.h"
#include "core/setting_ref.h"
#include "devices/device.h"

namespace dp {

std::vector<TrainConfig> comparison_configs(const TrainConfig& base,
                                            const std::vector<int>& device_counts,
                                            bool scale_batch_and_lr,
                                            const std::string& snapshot_dir) {
    return comparison_configs(base, select_devices(base.devices), device_counts,
                              scale_batch_and_lr, snapshot_dir);
}

std::vector<TrainConfig> comparison_configs(const TrainConfig& base,
                                            const std::vector<DeviceInfo>& devices,
                                            const std::vector<int>& device_counts,
                                            bool scale_batch_and_lr,
                                            const std::string& snapshot_dir) {
    std::vector<TrainConfig> configs;
    for (int count : device_counts) {
        if (count < 1 || count > int(devices.size()))
            throw Error("cannot compare on " + std::to_string(count) + " devices: " +
                        std::to_string(devices.size()) + " available (see --list-devices)");
        TrainConfig config = base;
        config.devices.clear();
        for (int i = 0; i < count; ++i) config.devices.push_back(devices[i].id);
        // A straggler slows only the runs that have its device: the 1-device
        // run of --compare 1,2 --slow-device cpu:1=1.5 runs unslowed, as
        // the devices the 2-device run shares with it do (baseline_mismatch).
        config.slow_devices = slow_devices_among(base.slow_devices, config.devices);
        // Drift is rounding only at the same global batch: scaled runs do other maths.
        if (!snapshot_dir.empty() && !scale_batch_and_lr)
            (configs.empty() ? config.snapshot_dir : config.drift_from) = snapshot_dir;
        if (scale_batch_and_lr) {
            const std::optional<int> scaled = checked_multiply(base.batch_size, count);
            if (!scaled)
                throw Error(format("%s %d scaled to %d devices is more than %d: lower %s",
                                   setting("batch_size").c_str(), base.batch_size, count,
                                   std::numeric_limits<int>::max(),
                                   setting("batch_size").c_str()));
            config.batch_size = *scaled;
            config.lr = base.lr * float(count);
        }
        configs.push_back(std::move(config));
    }
    if (!configs.empty() && configs.back().slow_devices.size() != base.slow_devices.size())
        throw Error(setting("slow_devices") + " names a device that no run of this comparison " +
                    "trains on (the largest runs on " + std::to_string(configs.back().devices.size()) +
                    "): name one of its first devices");
    return configs;
}

namespace {

// Whether `one` device's batch and lr, scaled to `devices`, give `run`'s:
// the product is computed as comparison_configs computes it, so it matches exactly.
bool scaled_to(const TrainConfig& one, const TrainConfig& run, int devices) {
    return checked_multiply(one.batch_size, devices) == run.batch_size &&
           one.lr * float(devices) == run.lr;
}

// Whether two lists of slow devices slow the same devices by the same
// factors, whatever their order and spelling ("1.50" is "1.5").
bool same_slow_devices(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    std::vector<SlowDevice> x = parse_slow_devices(a), y = parse_slow_devices(b);
    const auto by_device = [](const SlowDevice& p, const SlowDevice& q) { return p.device < q.device; };
    std::sort(x.begin(), x.end(), by_device);
    std::sort(y.begin(), y.end(), by_device);
    return std::equal(x.begin(), x.end(), y.begin(), y.end(), [](const SlowDevice& p, const SlowDevice& q) {
        return p.device == q.device && p.factor == q.factor;
    });
}

std::string straggler_text(const std::vector<std::string>& slow_devices) {
    return slow_devices.empty() ? "none" : slow_devices_text(slow_devices);
}

// A straggler on a device both ran on must be the same one: a speedup over
// an unslowed baseline would count the straggler as the devices' cost, and
// one over a slowed baseline would hide it. A slow device the baseline
// lacks leaves it as it is (comparison_configs' 1-device run), so that
// comparison stands, labelled as one with a straggler. Empty when they agree.
std::string straggler_mismatch(const TrainConfig& baseline, const TrainConfig& run) {
    try {
        const std::vector<std::string> shared = slow_devices_among(run.slow_devices, baseline.devices);
        if (same_slow_devices(baseline.slow_devices, shared)) return {};
        return "straggler: " + straggler_text(baseline.slow_devices) + " there, " +
               straggler_text(shared) + " here";
    } catch (const Error&) {  // a record's unreadable entry: no fair comparison
        return "straggler: unreadable slow-device settings";
    }
}

}  // namespace

std::string baseline_mismatch(const TrainConfig& baseline, const TrainConfig& run) {
    if (baseline.devices.size() != 1)
        return format("it ran on %zu devices, a baseline runs on 1", baseline.devices.size());
    const auto differs = [](const char* what, const std::string& mine, const std::string& theirs) {
        return std::string(what) + ": " + mine + " there, " + theirs + " here";
    };
    if (baseline.model != run.model) return differs("model", baseline.model, run.model);
    if (baseline.dataset != run.dataset || baseline.data_dir != run.data_dir ||
        (run.dataset == "random" &&
         (baseline.input_size != run.input_size || baseline.samples != run.samples)))
        return "other data";
    const auto number = [&](const char* what, long long mine, long long theirs) {
        return mine == theirs ? std::string() : differs(what, std::to_string(mine), std::to_string(theirs));
    };
    for (const std::string& difference :
         {number("training images", baseline.limit_train, run.limit_train),
          number("test images", baseline.limit_test, run.limit_test),
          number("epochs", baseline.epochs, run.epochs),
          number("seed", (long long)baseline.seed, (long long)run.seed)})
        if (!difference.empty()) return difference;
    if (baseline.shuffle != run.shuffle) return "shuffling differs";
    // A speedup over another precision would mix the number format's gain
    // into the data-parallel one; fp32 and bf16 still chart side by side.
    if (baseline.precision != run.precision)
        return differs("precision", baseline.precision, run.precision);
    if (const std::string straggler = straggler_mismatch(baseline, run); !straggler.empty())
        return straggler;
    const bool same_batch = baseline.batch_size == run.batch_size && baseline.lr == run.lr;
    if (!same_batch && !scaled_to(baseline, run, int(run.devices.size())))
        return format("batch %d and lr %g there; here ", baseline.batch_size, double(baseline.lr)) +
               baseline_batch_rule(run);
    return {};
}

std::string baseline_batch_rule(const TrainConfig& run) {
    const int devices = int(run.devices.size());
    std::string rule = format("batch %d and lr %g", run.batch_size, double(run.lr));
    if (devices > 1 && run.batch_size % devices == 0)
        rule += format(", or batch %d and lr %g (scaled to %d devices)", run.batch_size / devices,
                       double(run.lr / float(devices)), devices);
    return rule;
}

std::vector<ComparisonRow> compare_runs(const std::vector<TrainConfig>& configs,
                                        const std::vector<RunSummary>& runs) {
    std::vector<ComparisonRow> rows;
    double base_throughput = 0;
    int base_devices = 1;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const RunSummary& run = runs[i];
        const EpochTime time = run.epoch_time();
        const double throughput = time.median > 0 ? 1 / time.median : 0;
        if (i == 0) {
            base_throughput = throughput;
            base_devices = int(configs[0].devices.size());
        }
        ComparisonRow row;
        row.devices = int(configs[i].devices.size());
        row.global_batch = configs[i].batch_size;
        row.lr = configs[i].lr;
        row.seconds_per_epoch = time.median;
        row.seconds_min = time.min;
        row.seconds_max = time.max;
        row.speedup = base_throughput > 0 ? throughput / base_throughput : 0;
        const EpochTime base = runs[0].epoch_time();
        if (i > 0 && (time.steady_epochs < 2 || base.steady_epochs < 2)) {
            // One epoch's time has no spread to read: no range, no verdict.
            row.speedup_min = row.speedup_max = std::nan("");
        } else if (time.min > 0 && time.max > 0 && i > 0) {
            // Around the speedup whatever the rounding.
            row.speedup_min = std::min(row.speedup, base.min / time.max);
            row.speedup_max = std::max(row.speedup, base.max / time.min);
        } else {
            row.speedup_min = row.speedup_max = row.speedup;
        }
        row.efficiency = row.speedup * base_devices / row.devices;
        row.final_test_acc = run.final_test_acc();
        row.parameter_drift = run.epochs.empty() ? std::nan("") : run.epochs.back().parameter_drift;
        rows.push_back(row);
    }
    return rows;
}

RepeatedSpeedup summarize_speedups(int devices, std::vector<double> speedups) {
    if (speedups.empty()) return {devices, 0, 0, 0, 0};
    const double median = median_of(speedups);  // sorts them
    return {devices, median, speedups.front(), speedups.back(), int(speedups.size())};
}

std::vector<RepeatedSpeedup> repeated_speedups(
    const std::vector<std::vector<ComparisonRow>>& repeats) {
    std::vector<RepeatedSpeedup> speedups;
    if (repeats.empty()) return speedups;
    for (std::size_t i = 0; i < repeats.front().size(); ++i) {
        std::vector<double> values;
        for (const auto& rows : repeats) values.push_back(rows.at(i).speedup);
        RepeatedSpeedup summary = summarize_speedups(repeats.front()[i].devices, std::move(values));
        if (repeats.size() == 1) {
            summary.min = repeats.front()[i].speedup_min;
            summary.max = repeats.front()[i].speedup_max;
        }
        speedups.push_back(summary);
    }
    return speedups;
}

SpeedupVerdict speedup_verdict(double min, double max) {
    if (!has_speedup_range(min, max)) return SpeedupVerdict::too_few_epochs;
    if (min > 1) return SpeedupVerdict::faster;
    if (max < 1) return SpeedupVerdict::slower;
    return SpeedupVerdict::no_measurable_difference;
}

const char* speedup_verdict_text(SpeedupVerdict verdict) {
    switch (verdict) {
    case SpeedupVerdict::faster: return "faster";
    case SpeedupVerdict::slower: return "slower";
    case SpeedupVerdict::too_few_epochs: return "too few epochs to tell";
    case SpeedupVerdict::no_measurable_difference: break;
    }
    return "no measurable difference";
}

std::string speedup_range_text(double min, double max) {
    return has_speedup_range(min, max) ? format("%.2f-%.2f", min, max) : "no range";
}

std::string format_repeated_speedups(const std::vector<RepeatedSpeedup>& speedups) {
    std::string text;
    for (std::size_t i = 1; i < speedups.size(); ++i) {
        const RepeatedSpeedup& s = speedups[i];
        const std::string over = s.repeats > 1 ? format("over %d repeats", s.repeats)
                                               : std::string("from the steady epochs");
        text += format("%d device%s: %.2fx (%s) %s: %s\n", s.devices, s.devices == 1 ? "" : "s", s.median,
                       speedup_range_text(s.min, s.max).c_str(), over.c_str(), speedup_verdict_text(s.verdict()));
    }
    return text;
}

std::string format_comparison(const std::vector<ComparisonRow>& rows) {
    std::string text =
        "devices  global batch      lr  sec/epoch        range  speedup  efficiency  test acc  "
        "drift vs first\n";
    // sec/epoch and its range: the steady epochs' (after the first), as every view quotes them.
    for (const auto& row : rows) {
        const std::string drift =
            std::isnan(row.parameter_drift) ? "-" : format("%.1e", row.parameter_drift);
        const std::string range = format("%.2f-%.2f", row.seconds_min, row.seconds_max);
        text += format("%7d  %12d  %6.3g  %9.2f  %11s  %7.2f  %9.0f%%  %8.3f  %14s\n", row.devices,
                       row.global_batch, row.lr, row.seconds_per_epoch, range.c_str(), row.speedup,
                       100 * row.efficiency, row.final_test_acc, drift.c_str());
    }
    return text;
}

}  // namespace dp
