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
#include "cli/interrupt.h"
#include "cli/prediction_report.h"
#include "cli/study_console.h"
#include "cli/sweep_command.h"
#include "cli/version_text.h"
#include "cli/scratch_folder.h"
#include "core/format.h"
#include "core/error.h"
#include "core/exception_message.h"
#include "devices/device.h"
#include "module/cuda_module.h"
#include "scaling/comparison_report.h"
#include "config/config_fields.h"
#include "config/slow_devices.h"
#include "scaling/scaling_comparison.h"
#include "scaling/speedup_gap.h"
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

// A comparison's console: after each repeat its speedup table and each
// N-device run's gap; what --predict and --report need kept.
class ComparisonConsole final : public dp::StudyConsole {
public:
    using StudyConsole::StudyConsole;

    void on_run_finished(const dp::StudyRunResult& result) override {
        StudyConsole::on_run_finished(result);
        if (result.outcome != dp::RunOutcome::finished) return;
        const std::vector<dp::PlannedRun>& points = plan_->points;
        runs_.resize(points.size());
        loads_.resize(points.size());
        runs_[result.run.point] = result.summary;
        loads_[result.run.point] = result.load;
        if (result.run.point + 1 < points.size()) return;
        // The repeat is complete: its table, and what --predict scales from.
        std::vector<dp::TrainConfig> configs;
        for (const dp::PlannedRun& point : points) configs.push_back(point.config);
        repeats.push_back(dp::compare_runs(configs, runs_));
        for (std::size_t i = 0; i < configs.size(); ++i) repeats.back()[i].load = loads_[i];
        gaps = print_comparison(configs, runs_, repeats.back());
        predicted_configs.insert(predicted_configs.end(), configs.begin(), configs.end());
        predicted_runs.insert(predicted_runs.end(), runs_.begin(), runs_.end());
    }

    std::vector<std::vector<dp::ComparisonRow>> repeats;
    std::vector<dp::SpeedupGap> gaps;  // the last repeat's
    // --predict scales from, and checks against, every repeat's runs.
    std::vector<dp::TrainConfig> predicted_configs;
    std::vector<dp::RunSummary> predicted_runs;

private:
    std::vector<dp::RunSummary> runs_;  // the repeat in progress, by point
    std::vector<dp::MachineLoad> loads_;
};

int compare(const dp::CliCommand& command) {
    // The first run's parameters after each epoch, for the others' drift.
    std::optional<dp::ScratchFolder> scratch;
    try {
        scratch.emplace("dp-train-compare");
    } catch (const dp::Error& error) {
        print_error(error.what());
        return 2;  // an environment no run can use, found before any run
    }
    // Resolved once: run i is on the first configs[i].devices.size() of them.
    const auto devices = dp::select_devices(command.config.devices);
    dp::StudyPlan plan;
    try {
        plan = dp::comparison_plan(command.config, devices, command.compare_counts,
                                   command.scale_lr, command.repeats, scratch->path().string());
    } catch (const dp::Error& error) {
        print_error(error.what());
        return 2;  // settings that hold alone but not together: a bad command line
    }
    ComparisonConsole console(command);
    const dp::StudyResult result = dp::cli_study_runner(command).run(plan, console);
    if (!result.complete) return dp::study_exit_code(result);
    // The verdict word follows the range (a range that holds 1x is no measurable difference).
    if (plan.points.size() > 1)
        std::printf("\nspeedup, %s:\n%s",
                    command.repeats > 1 ? dp::format("median and range of %d repeats", command.repeats).c_str()
                                        : "with the range its steady epochs allow",
                    dp::format_repeated_speedups(dp::repeated_speedups(console.repeats)).c_str());
    console.print_busy_note();
    // A failed write is the run's failure (exit 1, main's one line).
    if (!command.report_path.empty())
        dp::write_comparison_report(command.report_path, console.repeats, console.gaps);
    if (command.predict)
        std::fputs(dp::prediction_report(console.predicted_configs, console.predicted_runs, devices).c_str(),
                   stdout);
    return 0;
}

// One run, then with --predict the what-if table from it.
int train_and_predict(const dp::CliCommand& command) {
    // Resolved once for the whole run (parse_cli refused unknown devices).
    const std::vector<dp::DeviceInfo> devices = dp::select_devices(command.config.devices);
    dp::StudyConsole console(command);
    const dp::StudyResult result =
        dp::cli_study_runner(command).run(dp::single_run_plan(command.config, devices), console);
    if (const int code = dp::study_exit_code(result); code != 0 || !command.predict) return code;
    std::fputs(dp::prediction_report({command.config}, {result.runs.back().summary}, devices).c_str(),
               stdout);
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
        case dp::CliCommand::Action::sweep:
            return dp::sweep(command);
        case dp::CliCommand::Action::gather_study:
            return dp::gather_study(command);
        case dp::CliCommand::Action::export_study:
            return dp::export_study(command);
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
