// dp-train: trains a model from the command line and prints d2l's summary.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cli/cli_options.h"
#include "cli/console_observer.h"
#include "cli/record_sinks.h"
#include "core/error.h"
#include "devices/device.h"
#include "train/config_fields.h"
#include "train/scaling_comparison.h"
#include "train/trainer.h"
#ifdef DP_HAVE_MPI
#include "cli/distributed_run.h"
#endif

namespace {

int list_devices() {
    for (const auto& device : dp::available_devices())
        std::printf("%-8s %s\n", device.id.c_str(), device.description.c_str());
    return 0;
}

// Trains on `devices`, config.devices resolved once by the caller. Exit code
// 1 if the run failed; `summary` receives what it measured.
int train(const dp::TrainConfig& config, const std::vector<dp::DeviceInfo>& devices,
          const dp::CliCommand& command, dp::RunSummary* summary = nullptr,
          const std::string& comparison_group = {}) {
    std::optional<dp::RecordedRun> record;
    if (auto sinks = dp::record_sinks(config, command.history); !sinks.empty()) {
        dp::TrainConfig as_run = config;
        as_run.devices.clear();
        for (const auto& device : devices) as_run.devices.push_back(device.id);
        dp::RunRecord started = dp::start_run_record(as_run, "dp-train");
        started.comparison_group = comparison_group;
        record.emplace(std::move(started), std::move(sinks));
    }
    dp::ConsoleObserver observer({.epochs = config.epochs,
                                  .verbose = command.verbose,
                                  .quiet = false,
                                  .failure_prefix = "",
                                  .record = record ? &*record : nullptr});
    const auto outcome = dp::Trainer(config, devices).run(observer);
    if (record) record->finish(outcome, observer.failure());
    if (summary) *summary = observer.summary();
    return outcome == dp::RunOutcome::failed ? 1 : 0;
}

int compare(const dp::CliCommand& command) {
    // The first run's parameters after each epoch, for the others' drift.
    const std::filesystem::path snapshots =
        std::filesystem::temp_directory_path() / ("dp-train-compare-" + std::to_string(::getpid()));
    std::filesystem::create_directories(snapshots);
    const struct RemoveAtExit {
        std::filesystem::path path;
        ~RemoveAtExit() { std::error_code ignored; std::filesystem::remove_all(path, ignored); }
    } remove_snapshots{snapshots};
    // Resolved once: run i is on the first configs[i].devices.size() of them.
    const auto devices = dp::select_devices(command.config.devices);
    const auto configs = dp::comparison_configs(command.config, devices, command.compare_counts,
                                                command.scale_lr, snapshots.string());
    std::vector<dp::RunSummary> runs(configs.size());
    const std::string group = dp::new_comparison_group();
    for (std::size_t i = 0; i < configs.size(); ++i) {
        std::printf("== run %zu of %zu: %zu device(s), global batch %d, lr %g\n", i + 1,
                    configs.size(), configs[i].devices.size(), configs[i].batch_size,
                    double(configs[i].lr));
        const std::vector<dp::DeviceInfo> run_devices(
            devices.begin(), devices.begin() + std::ptrdiff_t(configs[i].devices.size()));
        if (const int code = train(configs[i], run_devices, command, &runs[i], group); code != 0)
            return code;
    }
    std::printf("\n%s", dp::format_comparison(dp::compare_runs(configs, runs)).c_str());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    dp::CliCommand command;
    try {
        command = dp::parse_cli(std::vector<std::string>(argv + 1, argv + argc));
        switch (command.action) {
        case dp::CliCommand::Action::help:
            std::fputs(dp::cli_help().c_str(), stdout);
            return 0;
        case dp::CliCommand::Action::list_devices:
            return list_devices();
        case dp::CliCommand::Action::compare:
            return compare(command);
        case dp::CliCommand::Action::train:
#ifdef DP_HAVE_MPI
            if (command.distributed) return dp::train_distributed(command, argc, argv);
#endif
            // An unknown or absent device is a usage error (exit 2), found
            // before any data is loaded. Resolved once for the whole run.
            return train(command.config, dp::select_devices(command.config.devices), command);
        }
    } catch (const dp::Error& error) {
        std::fprintf(stderr, "dp-train: %s\n",
                     dp::render_settings(error.what(), dp::flag_or_label).c_str());
        return 2;
    }
    return 0;
}
