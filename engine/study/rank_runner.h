#pragma once

// One rank of an MPI job (dp-train --distributed under mpirun or srun)
// through its whole run, in the engine: the front end builds the plan, says
// where records are kept, renders the events and maps the result to an exit
// code. Built only with DP_HAVE_MPI.

#include <functional>
#include <optional>
#include <string>

#include "parallel/mpi_session.h"
#include "study/study_runner.h"

namespace dp {

// What a rank's part of the job left, where it returns (a rank whose run
// fails, or that records a dead rank, ends the job instead: RankRunner).
struct RankRunResult {
    // Why the job did not start, the same on every rank: settings that hold
    // for no job of this size (validate_ranks' message, which the front end
    // says once, on rank 0); "" where rank 0 could not read its command line
    // and has said why. None: it ran.
    std::optional<std::string> refused;
    // The run as this rank trained it (on its device), finished or stopped.
    // Its record and record_error are rank 0's, which writes the record.
    StudyRunResult run;
};

// A rank's life cycle: MPI's session, the settings every rank must share
// (check_same_settings, validate_ranks), its device and the communicator
// among the ranks (distributed_init), the run's record (rank 0's id and
// start on every rank; rank 0 writes it), a watch on the ranks beside it
// that records the run as failed when one is killed (RankDeathWatch), the
// training, and the run's end: recorded by rank 0 after a barrier, or by the
// failing rank itself, which then ends the job (MPI_Abort), so that every
// rank exits non-zero.
class RankRunner {
public:
    struct Options {
        // Where the run's record is kept (as StudyRunner::Options::sinks);
        // none: no record is kept and no death recorded. Called on rank 0 at
        // the start, and on any rank that records the run's end for rank 0
        // (a failure, a dead rank: then on the death watch's thread).
        decltype(StudyRunner::Options::sinks) sinks;
        // How a run's error reads in its record (as StudyRunner's).
        decltype(StudyRunner::Options::render_error) render_error;
        // What this rank says just before it ends the job: "rank 1: <why>",
        // one line the front end prints (dp-train: "dp-train: rank 1: ...").
        // Called on the thread that ends it (the main one, or the death
        // watch's); the process ends when it returns.
        std::function<void(const std::string& line)> last_words;
    };

    // Starts MPI (MpiSession): throws its dp::Error where MPI cannot.
    RankRunner(int& argc, char**& argv, Options options);

    int rank() const { return mpi_.rank(); }  // in the job, from 0
    int ranks() const { return mpi_.size(); }

    // Runs `plan`, a single run (single_run_plan; its devices are resolved
    // here, one per rank), with `observer` rendering it on this rank: its
    // events, then on_run_started with the Trainer (a front end may stop
    // it), on_run_finished and on_study_finished. Collective: every rank of
    // the job calls it with its own command line's plan. Throws dp::Error,
    // before any collective, for a plan of several runs. Returns where the
    // job did not start, or the run finished or stopped on every rank;
    // otherwise ends the job (rank_runner.cpp says when).
    RankRunResult run(const StudyPlan& plan, StudyObserver& observer) const;

    // For a rank whose command line could not be read: takes check_same_settings'
    // part without settings (rank_zero_started). True where rank 0 starts a
    // run: this rank alone is wrong and must end the job.
    bool rank_zero_starts() const;
    // MPI_Abort: mpirun (or srun) ends every rank of the job with `exit_code`.
    [[noreturn]] void end_job(int exit_code) const { mpi_.abort(exit_code); }

private:
    RankRunResult run_rank(const PlannedRun& planned, const StudyPlan& plan, StudyObserver& observer) const;

    MpiSession mpi_;
    Options options_;
};

}  // namespace dp
