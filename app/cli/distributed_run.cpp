#include "cli/distributed_run.h"

#include <cstdio>
#include <string>

#include "cli/interrupt.h"
#include "cli/study_console.h"
#include "study/rank_runner.h"

namespace dp {
namespace {

// How the engine's last line before it ends the job reads: dp-train's.
void print_last_words(const std::string& line) {
    std::fprintf(stderr, "dp-train: %s\n", line.c_str());
    std::fflush(stderr);
}

}  // namespace

int train_distributed(const CliCommand& command, int& argc, char**& argv) {
    // A rank cannot tell a user's signal, which mpirun relays, from mpirun's
    // SIGTERM that ends the job when another rank failed, aborted or died:
    // no rank promises a recorded stop when one comes. Rank 0 says how the
    // run ended once it has recorded it.
    silence_interrupt_notices();
    const StudyRunner::Options kept = cli_study_options(command);
    const bool records_kept = !command.config.record_path.empty() || command.history;
    const RankRunner rank(argc, argv,
                          {.sinks = records_kept ? kept.sinks : nullptr,
                           .render_error = kept.render_error,
                           .last_words = print_last_words});
    // Only rank 0 prints the run; every rank says its own failure.
    StudyConsole console(command, {.quiet = rank.rank() != 0,
                                   .failure_prefix = "rank " + std::to_string(rank.rank()) + ": "});
    // The rank's device is the engine's to choose (one per rank).
    const RankRunResult result = rank.run(single_run_plan(command.config, {}), console);
    if (result.refused) {
        // The same on every rank: one line for the job.
        if (rank.rank() == 0 && !result.refused->empty()) std::fprintf(stderr, "dp-train: %s\n", result.refused->c_str());
        return 2;
    }
    if (result.run.outcome == RunOutcome::stopped) {
        // Every rank stops at the same step, whichever the signal reached.
        const std::string& end_problem = result.run.record_error;
        if (rank.rank() == 0)
            std::fprintf(stderr, "dp-train: stopped by %s%s%s\n",
                         interrupting_signal() ? interrupting_signal_name() : "a signal to another rank",
                         !records_kept         ? ""
                         : end_problem.empty() ? "; the run is recorded as stopped"
                                               : "; its end could not be recorded: ",
                         end_problem.c_str());
        return interrupting_signal() ? 128 + interrupting_signal() : 1;
    }
    return 0;
}

int report_unreadable_command_line(const std::string& message, int& argc, char**& argv) {
    silence_interrupt_notices();  // mpirun's SIGTERM when a rank ends the job stops no run
    const RankRunner rank(argc, argv, {});
    if (rank.rank() == 0) {
        std::fprintf(stderr, "dp-train: %s\n", message.c_str());
        std::fflush(stderr);
        rank.rank_zero_starts();
        return 2;
    }
    if (!rank.rank_zero_starts()) return 2;  // rank 0 said it (most likely the same)
    std::fprintf(stderr, "dp-train: rank %d: %s\n", rank.rank(), message.c_str());
    std::fflush(stderr);
    rank.end_job(2);
}

}  // namespace dp
