// dp-train: trains a model from the command line and prints d2l's summary.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/cli_options.h"
#include "cli/console_observer.h"
#include "cli/counted_noun.h"
#include "cli/interrupt.h"
#include "cli/prediction_report.h"
#include "cli/record_sinks.h"
#include "cli/version_text.h"
#include "cli/scratch_folder.h"
#include "core/format.h"
#include "core/machine_load.h"
#include "core/error.h"
#include "core/exception_message.h"
#include "devices/device.h"
#include "module/cuda_module.h"
#include "scaling/comparison_report.h"
#include "config/config_fields.h"
#include "config/slow_devices.h"
#include "scaling/scaling_comparison.h"
#include "scaling/speedup_gap.h"
#include "train/trainer.h"
#ifdef DP_HAVE_MPI
#include "cli/distributed_run.h"
#endif

namespace {

int list_devices() {
    for (const auto& device : dp::available_devices())
        std::printf("%-8s %s\n", device.id.c_str(), device.description.c_str());
    // Why there is no cuda: device, when the CUDA module could not be loaded.
    if (const std::string cuda = dp::cuda_module_problem(); !cuda.empty())
        std::printf("%s\n", cuda.c_str());
    return 0;
}

// The one line dp-train prints for an error, settings named by their flags.
void print_error(const std::string& message) {
    std::fprintf(stderr, "dp-train: %s\n", dp::render_settings(message, dp::flag_or_label).c_str());
}

// A run stopped by a signal (cli/interrupt.h): what was kept, and the shell's exit code for it.
int interrupted_exit_code(const dp::RunSummary& summary, int planned_epochs) {
    std::fprintf(stderr, "dp-train: stopped by %s after %zu of %d epochs; the run is recorded "
                         "as stopped\n",
                 dp::interrupting_signal_name(), summary.epochs.size(), planned_epochs);
    return 128 + dp::interrupting_signal();
}

// Trains on `devices`, config.devices resolved once by the caller. Exit code
// 1 if the run failed, 128 + the signal if a signal stopped it;
// `summary` receives what it measured.
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
    dp::Trainer trainer(config, devices);
    const dp::StopOnInterrupt stop_on_interrupt(trainer);
    const auto outcome = trainer.run(observer);
    if (record)
        // Printed unless it is the failure the run already reported.
        if (const std::string failed = record->finish(outcome, observer.failure());
            !failed.empty() && failed != observer.failure()) {
            print_error(failed);
            return 1;
        }
    if (summary) *summary = observer.summary();
    if (outcome == dp::RunOutcome::failed) return 1;
    if (outcome == dp::RunOutcome::stopped && dp::interrupting_signal())
        return interrupted_exit_code(observer.summary(), config.epochs);
    return 0;
}

// One run of a comparison, flagged when other processes kept more than a
// fifth of the cores busy while it ran (its time then says little); `load`
// is what they kept busy, for the report.
int compared_run(const dp::TrainConfig& config, const std::vector<dp::DeviceInfo>& devices,
                 const dp::CliCommand& command, dp::RunSummary& summary, const std::string& group,
                 dp::MachineLoad& load) {
    const dp::CpuClock before = dp::read_cpu_clock();
    const int code = train(config, devices, command, &summary, group);
    load = dp::machine_load_between(before, dp::read_cpu_clock());
    if (load.busy())
        dp::print(stdout, "-- measured while the machine was busy: other processes used %.1f of %d "
                          "cores (load average %.1f); its time is not trusted\n",
                  load.other_cores, load.cores, load.load_average);
    return code;
}

// "with a straggler: cpu:1 1.5x slower; the 1-device run has no cpu:1 and
// ran unslowed": how a comparison with slow devices was run (the largest
// run has them all, scaling/scaling_comparison.h), empty without them.
std::string straggler_note(const std::vector<dp::TrainConfig>& configs) {
    const std::vector<std::string>& slow = configs.back().slow_devices;
    if (slow.empty()) return {};
    std::string note = "with a straggler: " + dp::slow_devices_text(slow);
    for (const dp::TrainConfig& config : configs)
        if (config.slow_devices.size() < slow.size())
            note += dp::format("; the %zu-device run has %s and ran %s", config.devices.size(),
                               config.slow_devices.empty() ? "none of them" : "only some",
                               config.slow_devices.empty() ? "unslowed" : "with those");
    return note + "\n";
}

// The speedup table of one repeat, then each N-device run's gap.
std::vector<dp::SpeedupGap> print_comparison(const std::vector<dp::TrainConfig>& configs,
                                             const std::vector<dp::RunSummary>& runs,
                                             const std::vector<dp::ComparisonRow>& rows) {
    std::printf("\n%s%s", dp::format_comparison(rows).c_str(), straggler_note(configs).c_str());
    // Why each N-device run falls short of N times the first's speed.
    std::vector<dp::SpeedupGap> gaps;
    if (configs.front().devices.size() == 1)
        for (std::size_t i = 1; i < runs.size(); ++i) {
            dp::SpeedupGap gap = dp::explain_speedup_gap(
                configs[0], runs[0], configs[i], runs[i],
                dp::distinct_cpu_cores(configs[i].devices, int(dp::usable_cores().size())));
            for (dp::GapPart& part : gap.parts)  // the settings named by their flags
                part.advice = dp::render_settings(part.advice, dp::flag_or_label);
            std::printf("\n%s", dp::format_speedup_gap(gap).c_str());
            gaps.push_back(std::move(gap));
        }
    return gaps;
}

int compare(const dp::CliCommand& command) {
    // The first run's parameters after each epoch, for the others' drift.
    std::optional<dp::ScratchFolder> scratch;
    try {
        scratch.emplace("dp-train-compare");
    } catch (const dp::Error& error) {
        print_error(error.what());
        return 2;  // an environment no run can use, found before any run
    }
    const std::filesystem::path& snapshots = scratch->path();
    // Resolved once: run i is on the first configs[i].devices.size() of them.
    const auto devices = dp::select_devices(command.config.devices);
    std::vector<dp::TrainConfig> configs;
    try {
        configs = dp::comparison_configs(command.config, devices, command.compare_counts,
                                         command.scale_lr, snapshots.string());
        // Every run's settings hold (a scaled lr can overflow), before the first trains.
        for (const auto& config : configs)
            dp::validate(config, std::vector<dp::DeviceInfo>(
                                     devices.begin(),
                                     devices.begin() + std::ptrdiff_t(config.devices.size())));
    } catch (const dp::Error& error) {
        print_error(error.what());
        return 2;  // settings that hold alone but not together: a bad command line
    }
    std::vector<std::vector<dp::ComparisonRow>> repeats;
    std::vector<dp::RunSummary> runs(configs.size());
    std::vector<dp::MachineLoad> loads(configs.size());
    std::vector<dp::SpeedupGap> gaps;
    std::vector<dp::TrainConfig> predicted_configs;
    std::vector<dp::RunSummary> predicted_runs;
    bool busy = false;
    // Repeats alternate the counts (1, N, 1, N, ...): load that drifts hits each alike.
    // One group for all of them: the workbench pairs each N-device run with
    // the 1-device run before it and shows the repeats' median and range.
    const std::string group = dp::new_comparison_group();
    for (int repeat = 0; repeat < command.repeats; ++repeat) {
        for (std::size_t i = 0; i < configs.size(); ++i) {
            dp::print(stdout, "== run %zu of %zu%s: %s, global batch %d, lr %g\n", i + 1,
                      configs.size(),
                      command.repeats > 1 ? dp::format(", repeat %d of %d", repeat + 1, command.repeats).c_str() : "",
                      dp::counted((long long)configs[i].devices.size(), "device", "devices").c_str(),
                      configs[i].batch_size, double(configs[i].lr));
            const std::vector<dp::DeviceInfo> run_devices(
                devices.begin(), devices.begin() + std::ptrdiff_t(configs[i].devices.size()));
            if (const int code = compared_run(configs[i], run_devices, command, runs[i], group, loads[i]))
                return code;
            busy = busy || loads[i].busy();
        }
        repeats.push_back(dp::compare_runs(configs, runs));
        for (std::size_t i = 0; i < configs.size(); ++i) repeats.back()[i].load = loads[i];
        gaps = print_comparison(configs, runs, repeats.back());
        // --predict scales from, and checks against, every repeat's runs.
        predicted_configs.insert(predicted_configs.end(), configs.begin(), configs.end());
        predicted_runs.insert(predicted_runs.end(), runs.begin(), runs.end());
    }
    // The verdict word follows the range (a range that holds 1x is no measurable difference).
    if (configs.size() > 1)
        std::printf("\nspeedup, %s:\n%s",
                    command.repeats > 1 ? dp::format("median and range of %d repeats", command.repeats).c_str()
                                        : "with the range its steady epochs allow",
                    dp::format_repeated_speedups(dp::repeated_speedups(repeats)).c_str());
    if (busy)
        std::printf("note: some runs were measured while the machine was busy (marked above)\n");
    // A failed write is the run's failure (exit 1, main's one line).
    if (!command.report_path.empty())
        dp::write_comparison_report(command.report_path, repeats, gaps);
    if (command.predict)
        std::fputs(dp::prediction_report(predicted_configs, predicted_runs, devices).c_str(), stdout);
    return 0;
}

// One run, then with --predict the what-if table from it.
int train_and_predict(const dp::CliCommand& command) {
    // Resolved once for the whole run (parse_cli refused unknown devices).
    const std::vector<dp::DeviceInfo> devices = dp::select_devices(command.config.devices);
    if (!command.predict) return train(command.config, devices, command);
    dp::RunSummary summary;
    if (const int code = train(command.config, devices, command, &summary); code != 0) return code;
    std::fputs(dp::prediction_report({command.config}, {summary}, devices).c_str(), stdout);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    dp::catch_interrupting_signals();  // from the start, so no run's end goes unrecorded
    dp::CliCommand command;
    try {
        command = dp::parse_cli(std::vector<std::string>(argv + 1, argv + argc));
    } catch (...) {
#ifdef DP_HAVE_MPI
        // Every rank of an mpirun job reads the same command line: one line for
        // the job. Only under a launcher (Open MPI's, MPICH's or PMIx's
        // variables): alone, the line needs no MPI.
        const bool launched = std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE") ||
                              std::getenv("PMIX_RANK");
        if (launched && std::find(argv + 1, argv + argc, std::string_view("--distributed")) != argv + argc)
            return dp::report_unreadable_command_line(
                dp::render_settings(dp::current_exception_message(), dp::flag_or_label), argc, argv);
#endif
        print_error(dp::current_exception_message());
        return 2;  // a bad command line
    }
    try {
        switch (command.action) {
        case dp::CliCommand::Action::help:
            std::fputs(dp::cli_help().c_str(), stdout);
            return 0;
        case dp::CliCommand::Action::version:
            std::fputs(dp::version_text().c_str(), stdout);
            return 0;
        case dp::CliCommand::Action::list_devices:
            return list_devices();
        case dp::CliCommand::Action::compare:
            return compare(command);
        case dp::CliCommand::Action::train:
#ifdef DP_HAVE_MPI
            if (command.distributed) return dp::train_distributed(command, argc, argv);
#endif
            return train_and_predict(command);
        }
    } catch (...) {
        print_error(dp::current_exception_message());
        return 1;
    }
    return 0;
}
