#include "cli/study_console.h"

#include <cstdio>

#include "cli/counted_noun.h"
#include "cli/record_sinks.h"
#include "config/config_fields.h"
#include "core/format.h"

namespace dp {

void StudyConsole::on_study_started(const StudyPlan& plan) { plan_ = &plan; }

void StudyConsole::on_run_started(const PlannedRun& run, Trainer& trainer) {
    if (plan_ && plan_->kind != StudyKind::single_run) {
        // "== run 2 of 2, repeat 1 of 2: 2 devices, global batch 64, lr 0.2"
        const std::string repeat =
            plan_->repeats > 1 ? format(", repeat %d of %d", run.repeat + 1, plan_->repeats) : "";
        print(stdout, "== run %zu of %zu%s: %s, global batch %d, lr %g\n", run.point + 1,
              plan_->points.size(), repeat.c_str(),
              counted((long long)run.devices.size(), "device", "devices").c_str(),
              run.config.batch_size, double(run.config.lr));
    }
    run_console_.emplace(ConsoleObserver::Options{.epochs = run.config.epochs,
                                                  .verbose = command_.verbose,
                                                  .quiet = voice_.quiet,
                                                  .failure_prefix = voice_.failure_prefix});
    stop_on_interrupt_.emplace(trainer);
}

void StudyConsole::on_run_finished(const StudyRunResult& result) {
    stop_on_interrupt_.reset();
    // A run of several is flagged when other processes kept more than a
    // fifth of the cores busy while it ran: its time then says little.
    if (plan_ && plan_->kind != StudyKind::single_run && result.load.busy()) {
        print(stdout, "-- measured while the machine was busy: other processes used %.1f of %d "
                      "cores (load average %.1f); its time is not trusted\n",
              result.load.other_cores, result.load.cores, result.load.load_average);
        any_busy_ = true;
    }
}

void StudyConsole::print_busy_note() const {
    if (any_busy_)
        std::printf("note: some runs were measured while the machine was busy (marked above)\n");
}

StudyRunner::Options cli_study_options(const CliCommand& command) {
    const bool history = command.history;
    return {.source = "dp-train",
            .sinks = [history](const TrainConfig& config) { return record_sinks(config, history); },
            .render_error = [](const std::string& message) { return render_settings(message, flag_or_label); },
            .trace_folder = {}};  // --trace names the file itself
}

StudyRunner cli_study_runner(const CliCommand& command) { return StudyRunner(cli_study_options(command)); }

int study_exit_code(const StudyResult& result) {
    if (result.runs.empty()) return 0;
    const StudyRunResult& last = result.runs.back();
    // Printed unless it is the failure the run already reported.
    if (!last.record_error.empty() && last.record_error != last.failure) {
        std::fprintf(stderr, "dp-train: %s\n", render_settings(last.record_error, flag_or_label).c_str());
        return 1;
    }
    if (last.outcome == RunOutcome::failed) return 1;
    if (last.outcome == RunOutcome::stopped && interrupting_signal()) {
        std::fprintf(stderr, "dp-train: stopped by %s after %zu of %d epochs; the run is recorded "
                             "as stopped\n",
                     interrupting_signal_name(), last.summary.epochs.size(), last.run.config.epochs);
        return 128 + interrupting_signal();
    }
    return 0;
}

}  // namespace dp
