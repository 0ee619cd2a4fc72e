#include "train/scaling_comparison.h"

#include <cstdio>

#include "core/error.h"
#include "devices/device.h"

namespace dp {

std::vector<TrainConfig> comparison_configs(const TrainConfig& base,
                                            const std::vector<int>& device_counts,
                                            bool scale_batch_and_lr) {
    const auto devices = select_devices(base.devices);
    std::vector<TrainConfig> configs;
    for (int count : device_counts) {
        if (count < 1 || count > int(devices.size()))
            throw Error("cannot compare on " + std::to_string(count) + " devices: " +
                        std::to_string(devices.size()) + " available (see --list-devices)");
        TrainConfig config = base;
        config.devices.clear();
        for (int i = 0; i < count; ++i) config.devices.push_back(devices[i].id);
        if (scale_batch_and_lr) {
            config.batch_size = base.batch_size * count;
            config.lr = base.lr * float(count);
        }
        configs.push_back(std::move(config));
    }
    return configs;
}

std::vector<ComparisonRow> compare_runs(const std::vector<TrainConfig>& configs,
                                        const std::vector<RunSummary>& runs) {
    std::vector<ComparisonRow> rows;
    double base_throughput = 0;
    int base_devices = 1;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const RunSummary& run = runs[i];
        double seconds = 0;
        for (const auto& epoch : run.epochs) seconds += epoch.seconds;
        const double throughput = seconds > 0 ? double(run.epochs.size()) / seconds : 0;
        if (i == 0) {
            base_throughput = throughput;
            base_devices = int(configs[0].devices.size());
        }
        ComparisonRow row;
        row.devices = int(configs[i].devices.size());
        row.global_batch = configs[i].batch_size;
        row.lr = configs[i].lr;
        row.seconds_per_epoch = run.mean_seconds_per_epoch();
        row.speedup = base_throughput > 0 ? throughput / base_throughput : 0;
        row.efficiency = row.speedup * base_devices / row.devices;
        row.final_test_acc = run.final_test_acc();
        rows.push_back(row);
    }
    return rows;
}

std::string format_comparison(const std::vector<ComparisonRow>& rows) {
    std::string text = "devices  global batch      lr  sec/epoch  speedup  efficiency  test acc\n";
    for (const auto& row : rows) {
        char line[128];
        std::snprintf(line, sizeof line, "%7d  %12d  %6.3g  %9.2f  %7.2f  %9.0f%%  %8.3f\n",
                      row.devices, row.global_batch, row.lr, row.seconds_per_epoch, row.speedup,
                      100 * row.efficiency, row.final_test_acc);
        text += line;
    }
    return text;
}

}  // namespace dp
