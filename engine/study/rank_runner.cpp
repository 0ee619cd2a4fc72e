#include "study/rank_runner.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "core/error.h"
#include "record/run_process.h"
#include "study/rank_death_watch.h"
#include "study/recording_observer.h"
#include "train/distributed_init.h"
#include "train/recorded_run.h"

namespace dp {
namespace {

using SinksFor = decltype(RankRunner::Options::sinks);

// A rank other than 0 that fails writes the run's end itself: rank 0 may be
// unable to (stopped, or killed with the job when this rank aborts it), and
// its record would stay "running". Rank 0, if it can, writes its own end too.
void record_failure_for_rank0(const RecordedRun& followed, const TrainConfig& config,
                              const SinksFor& sinks, const std::string& failure) {
    try {
        RecordedRun ended(followed.record(), sinks(config));
        ended.finish(RunOutcome::failed, failure);
    } catch (const std::exception&) {
        // The job ends either way; this rank's failure is already said.
    }
}

// The run's record as this rank last wrote or followed it, behind a lock that
// the rank recording a dead rank's end keeps until it exits: the main
// thread's next write (an epoch, the stop) then waits instead of landing
// over that end.
struct RecordGuard {
    std::mutex mutex;
    RunRecord last;
};

// A rank's sinks (rank 0's; none on the others, which follow the record),
// each write also kept in the guard, under its lock.
class GuardedSinks final : public RunRecordSink {
public:
    GuardedSinks(std::shared_ptr<RecordGuard> guard, std::vector<std::unique_ptr<RunRecordSink>> sinks)
        : guard_(std::move(guard)), sinks_(std::move(sinks)) {}

    void write(const RunRecord& record) override {
        const std::lock_guard lock(guard_->mutex);
        guard_->last = record;
        std::exception_ptr first_error;
        for (const auto& sink : sinks_) {
            try {
                sink->write(record);
            } catch (...) {
                if (!first_error) first_error = std::current_exception();
            }
        }
        if (first_error) std::rethrow_exception(first_error);
    }
    bool holds_failure(const std::string& id) const override {
        return std::any_of(sinks_.begin(), sinks_.end(),
                           [&](const auto& sink) { return sink->holds_failure(id); });
    }

private:
    std::shared_ptr<RecordGuard> guard_;
    std::vector<std::unique_ptr<RunRecordSink>> sinks_;
};

// Every rank's machine and pid, in rank order (collective).
std::vector<RankProcess> rank_processes(const MpiSession& mpi) {
    std::vector<RankProcess> ranks;
    for (const std::string& told : mpi.all_gather(this_host() + "\n" + std::to_string(::getpid()))) {
        const auto newline = told.rfind('\n');
        ranks.push_back({told.substr(0, newline), std::stoll(told.substr(newline + 1))});
    }
    return ranks;
}

// The run's record on every rank: rank 0's id, start, process and machine
// (the epochs every rank sums alike); rank 0 writes it. It names the
// strategy as set (the workbench imports it with dp-train's own checks);
// the source (the launcher: mpirun or srun) and the processes say how it ran.
RunRecord shared_run_record(const MpiSession& mpi, const TrainConfig& config,
                            const std::vector<std::string>& rank_devices) {
    TrainConfig as_run = config;
    as_run.devices = rank_devices;
    RunRecord started = start_run_record(as_run, mpi_launcher_name(mpi.launcher()));
    started.processes = mpi.size();
    started.id = mpi.broadcast(started.id, 0);
    started.started_at = mpi.broadcast(started.started_at, 0);
    // The process that writes the record is rank 0's: the run trains on while it lives.
    started.pid = std::stoll(mpi.broadcast(std::to_string(started.pid), 0));
    started.host = mpi.broadcast(started.host, 0);
    return started;
}

// On the watch's thread, for the lowest rank alive: records the run as
// failed by `death`, says so, and ends this process. Returns, saying
// nothing, where the run is already recorded as failed: a rank that failed
// recorded why and ended the job, and its exit is the death seen.
void record_death(RecordGuard& guard, const TrainConfig& config, const RankRunner::Options& options,
                  const std::string& rank_prefix, const std::string& death) {
    std::unique_lock lock(guard.mutex);  // kept until _Exit
    RunRecord ended = guard.last;
    std::vector<std::unique_ptr<RunRecordSink>> sinks;
    std::string problem;
    try {
        sinks = options.sinks(config);  // this thread's own (a history connection is per thread)
    } catch (const std::exception& error) {
        problem = error.what();
    }
    if (std::any_of(sinks.begin(), sinks.end(), [&](const auto& sink) { return sink->holds_failure(ended.id); }))
        return;
    ended.status = RunStatus::failed;
    ended.error = death;
    for (const auto& sink : sinks) {
        try {
            sink->write(ended);
        } catch (const std::exception& error) {
            if (problem.empty()) problem = error.what();
        }
    }
    if (options.last_words)
        options.last_words(rank_prefix + death +
                           (problem.empty() ? "; the run is recorded as failed"
                                            : "; its end could not be recorded: " + problem));
    // The end of the protocol, not a front end's choice: the lock held until
    // the process is gone keeps the main thread's next write (an epoch, a
    // stop) from landing over the end just recorded, and mpirun, seeing
    // this rank exit, ends the others.
    std::_Exit(1);
}

}  // namespace

RankRunner::RankRunner(int& argc, char**& argv, Options options)
    : mpi_(argc, argv), options_(std::move(options)) {}

bool RankRunner::rank_zero_starts() const { return rank_zero_started(mpi_); }

RankRunResult RankRunner::run(const StudyPlan& plan, StudyObserver& observer) const {
    const std::vector<PlannedRun> runs = plan.runs();
    if (runs.size() != 1)
        throw Error("a rank of an MPI job trains one run, not a plan of " + std::to_string(runs.size()) +
                    ": give it a single run's plan (single_run_plan)");
    try {
        return run_rank(runs.front(), plan, observer);
    } catch (const std::exception& error) {
        // The others wait in a collective for this rank: only ending the job ends them.
        if (options_.last_words) options_.last_words("rank " + std::to_string(mpi_.rank()) + ": " + error.what());
        mpi_.abort(1);
    }
}

RankRunResult RankRunner::run_rank(const PlannedRun& planned, const StudyPlan& plan,
                                   StudyObserver& observer) const {
    const std::string rank_prefix = "rank " + std::to_string(mpi_.rank()) + ": ";
    observer.on_study_started(plan);
    TrainConfig config = planned.config;
    try {
        check_same_settings(mpi_, config);
    } catch (const RankZeroCannotStart&) {
        return {.refused = "", .run = {}};  // rank 0 said why
    }
    try {
        validate_ranks(config, mpi_.size());
    } catch (const Error& error) {
        // Every rank sees the same settings and fails alike.
        return {.refused = error.what(), .run = {}};
    }
    DistributedRank rank = distributed_init(mpi_, config);
    config.devices = {rank.device.id};
    PlannedRun run = planned;
    run.config = config;
    run.devices = {rank.device};

    RunRecord started = shared_run_record(mpi_, config, rank.part.rank_devices);
    started.comparison_group = run.comparison_group;
    const std::vector<RankProcess> ranks = rank_processes(mpi_);
    // Where records are kept, every rank follows the run's record in a
    // guard, for the rank that records a death; rank 0 alone writes it.
    std::shared_ptr<RecordGuard> guard;
    std::vector<std::unique_ptr<RunRecordSink>> sinks;
    if (options_.sinks) {
        guard = std::make_shared<RecordGuard>();
        sinks.push_back(std::make_unique<GuardedSinks>(
            guard, mpi_.rank() == 0 ? options_.sinks(config) : std::vector<std::unique_ptr<RunRecordSink>>{}));
    }
    // Kept even without sinks: its load measurement is the run's one.
    RecordedRun record(std::move(started), std::move(sinks));
    // The ranks beside this one train the same run: not load from other
    // processes (which flagged every one-node job busy).
    std::vector<std::int64_t> siblings;
    for (int other = 0; other < mpi_.size(); ++other)
        if (other != mpi_.rank() && ranks[std::size_t(other)].host == this_host())
            siblings.push_back(ranks[std::size_t(other)].pid);
    record.count_as_own(std::move(siblings));

    // A rank killed (SIGKILL, the OOM killer, a crash) takes no part in any
    // end; the ranks that see it die (those on its machine) tell mpirun's
    // coming SIGTERM from a stop, and the lowest alive records the run as
    // failed, naming it (the ranks met before the run was recorded: one
    // killed before that leaves no record behind, not one "running"
    // forever that no watch could yet see die).
    RankDeathWatch death_watch(ranks, mpi_.rank(), [&](int dead_rank, const std::vector<bool>& dead) {
        for (int lower = 0; lower < mpi_.rank(); ++lower)
            if (!dead[std::size_t(lower)]) return;  // a rank below records
        if (!guard) return;  // nothing recorded; mpirun names the dead rank
        const RankProcess& process = ranks[std::size_t(dead_rank)];
        record_death(*guard, config, options_, rank_prefix,
                     "rank " + std::to_string(dead_rank) + " died (process " + std::to_string(process.pid) +
                         " on " + process.host + ")");
    });
    RecordingObserver recording(record, observer, options_.render_error);
    Trainer trainer(config, {rank.device}, std::move(rank.part));
    // A front end asks it to stop on a signal: mpirun relays SIGINT and
    // SIGTERM to every rank, each asks to stop, the ranks stop at the same
    // step, and rank 0 records the end.
    observer.on_run_started(run, trainer);
    const RunOutcome outcome = trainer.run(recording);
    std::string end_problem;
    if (outcome != RunOutcome::failed) {
        // Every rank trained to the same end: a death until here is seen
        // and recorded. Rank 0 records the end at once: a rank killed
        // after this (mpirun then ends the job, rank 0 in the barrier
        // below) must not leave the run "running". Then none exits
        // (which would read as a death) while another still watches.
        mpi_.barrier();
        death_watch.stop();
        if (mpi_.rank() == 0) end_problem = record.finish(outcome, recording.failure());
        mpi_.barrier();
    } else {
        death_watch.stop();
        if (mpi_.rank() == 0) end_problem = record.finish(outcome, recording.failure());
    }
    RankRunResult result;
    result.run = {.run = run,
                  .outcome = outcome,
                  .record = record.record(),
                  .summary = recording.summary(),
                  .load = record.load(),
                  .failure = recording.failure(),
                  .record_error = end_problem};
    observer.on_run_finished(result.run);
    if (outcome == RunOutcome::failed) {
        if (guard && mpi_.rank() != 0) record_failure_for_rank0(record, config, options_.sinks, recording.failure());
        // The others may wait in a collective for this rank (a failure of
        // its own, not of all): only ending the job ends them, each exiting
        // non-zero.
        mpi_.abort(1);
    }
    observer.on_study_finished({.runs = {result.run},
                                .table = study_table({result.run.record}),
                                .complete = outcome == RunOutcome::finished});
    return result;
}

}  // namespace dp
