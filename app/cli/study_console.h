#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/cli_options.h"
#include "cli/console_observer.h"
#include "cli/interrupt.h"
#include "study/study_runner.h"

namespace dp {

// dp-train's view of a study: each run through a ConsoleObserver of its own
// (epoch lines, progress, its failure), stoppable by the signals
// (cli/interrupt.h) while it trains; a comparison's or sweep's runs each
// under a header line and flagged when the machine was busy.
class StudyConsole : public StudyObserver {
public:
    // How its runs speak (ConsoleObserver's options): a rank other than 0
    // of an MPI job says only its failure, each rank's failure naming it.
    struct Voice {
        bool quiet = false;
        std::string failure_prefix;  // "rank 2: "
    };
    explicit StudyConsole(const CliCommand& command) : command_(command) {}
    StudyConsole(const CliCommand& command, Voice voice) : command_(command), voice_(std::move(voice)) {}

    void on_study_started(const StudyPlan& plan) override;
    void on_run_started(const PlannedRun& run, Trainer& trainer) override;
    void on_run_finished(const StudyRunResult& result) override;

    void on_log(const std::string& line) override { run_console_->on_log(line); }
    void on_batch(const BatchProgress& progress) override { run_console_->on_batch(progress); }
    void on_step(const StepReport& report) override { run_console_->on_step(report); }
    void on_epoch(const EpochMetrics& metrics) override { run_console_->on_epoch(metrics); }
    void on_finished(const RunSummary& summary) override { run_console_->on_finished(summary); }
    void on_failed(const std::string& message) override { run_console_->on_failed(message); }

    // After a study's table: a note when some run was measured while the
    // machine was busy (each such run's line says so above).
    void print_busy_note() const;

protected:
    const CliCommand& command_;
    const StudyPlan* plan_ = nullptr;

private:
    Voice voice_;
    std::optional<ConsoleObserver> run_console_;
    std::optional<StopOnInterrupt> stop_on_interrupt_;
    bool any_busy_ = false;
};

// How dp-train's runs are kept and told: records where --record and the
// history keep them, errors naming settings by their flags.
StudyRunner::Options cli_study_options(const CliCommand& command);
// The runner dp-train's studies go through, with cli_study_options.
StudyRunner cli_study_runner(const CliCommand& command);

// dp-train's exit code for a study: 0 when every run finished; 1 for a run
// that failed or whose end no sink kept (printed here unless the run's own
// failure line said it); 128 + the signal for a run a signal stopped.
int study_exit_code(const StudyResult& result);

}  // namespace dp
