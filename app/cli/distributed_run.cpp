#include "cli/distributed_run.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "cli/console_observer.h"
#include "cli/interrupt.h"
#include "cli/rank_watch.h"
#include "cli/record_sinks.h"
#include "core/error.h"
#include "parallel/mpi_session.h"
#include "record/run_process.h"
#include "train/distributed_init.h"
#include "train/trainer.h"

namespace dp {

namespace {

// A rank other than 0 that fails writes the run's end itself: rank 0 may be
// unable to (stopped, or killed with the job when this rank aborts it), and
// its record would stay "running". Rank 0, if it can, writes its own end too.
void record_failure_for_rank0(const RecordedRun& followed, const TrainConfig& config,
                              const CliCommand& command, const std::string& failure) {
    try {
        RecordedRun ended(followed.record(), record_sinks(config, command.history));
        ended.finish(RunOutcome::failed, failure);
    } catch (const std::exception&) {
        // The job ends either way; this rank's failure is already printed.
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

// On the watch's thread, for the lowest rank alive: records the run as
// failed by `death`, says so, and ends this process (mpirun ends the others).
// Returns, saying nothing, where the run is already recorded as failed: a
// rank that failed recorded why and ended the job, and its exit is the death
// seen.
void record_death(RecordGuard& guard, const TrainConfig& config, bool history,
                  const std::string& rank_prefix, const std::string& death) {
    std::unique_lock lock(guard.mutex);  // kept until _Exit
    RunRecord ended = guard.last;
    std::vector<std::unique_ptr<RunRecordSink>> sinks;
    std::string problem;
    try {
        sinks = record_sinks(config, history);  // this thread's own (a history connection is per thread)
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
    std::fprintf(stderr, "dp-train: %s%s; %s\n", rank_prefix.c_str(), death.c_str(),
                 problem.empty() ? "the run is recorded as failed"
                                 : ("its end could not be recorded: " + problem).c_str());
    std::fflush(stderr);
    std::_Exit(1);
}

}  // namespace

int train_distributed(const CliCommand& command, int& argc, char**& argv) {
    // A rank cannot tell a user's signal, which mpirun relays, from mpirun's
    // SIGTERM that ends the job when another rank failed, aborted or died:
    // no rank promises a recorded stop when one comes. Rank 0 says how the
    // run ended once it has recorded it.
    silence_interrupt_notices();
    MpiSession mpi(argc, argv);
    const std::string rank_prefix = "rank " + std::to_string(mpi.rank()) + ": ";
    try {
        TrainConfig config = command.config;
        try {
            check_same_settings(mpi, config);
        } catch (const RankZeroCannotStart&) {
            return 2;  // rank 0 said why
        }
        try {
            validate_ranks(config, mpi.size());
        } catch (const Error& error) {
            // Every rank sees the same settings and fails alike: one line, exit 2.
            if (mpi.rank() == 0) std::fprintf(stderr, "dp-train: %s\n", error.what());
            return 2;
        }
        DistributedRank rank = distributed_init(mpi, config);
        config.devices = {rank.device.id};

        // Every rank follows the run's record (rank 0's id, the epochs every
        // rank sums alike); rank 0 writes it. It names the strategy as set
        // (the workbench imports it with dp-train's own checks); the source
        // (the launcher: mpirun or srun) and the processes say how it ran.
        TrainConfig as_run = config;
        as_run.devices = rank.part.rank_devices;
        RunRecord started = start_run_record(as_run, mpi_launcher_name(mpi.launcher()));
        started.processes = mpi.size();
        started.id = mpi.broadcast(started.id, 0);
        started.started_at = mpi.broadcast(started.started_at, 0);
        // The process that writes the record is rank 0's: the run trains on while it lives.
        started.pid = std::stoll(mpi.broadcast(std::to_string(started.pid), 0));
        started.host = mpi.broadcast(started.host, 0);
        const std::vector<RankProcess> ranks = rank_processes(mpi);
        std::optional<RecordedRun> record;
        std::shared_ptr<RecordGuard> guard;
        if (!config.record_path.empty() || command.history) {
            guard = std::make_shared<RecordGuard>();
            std::vector<std::unique_ptr<RunRecordSink>> sinks;
            sinks.push_back(std::make_unique<GuardedSinks>(
                guard, mpi.rank() == 0 ? record_sinks(config, command.history)
                                       : std::vector<std::unique_ptr<RunRecordSink>>{}));
            record.emplace(std::move(started), std::move(sinks));
        }
        // A rank killed (SIGKILL, the OOM killer, a crash) takes no part in
        // any end; the ranks that see it die (those on its machine) tell
        // mpirun's coming SIGTERM from a stop, and the lowest alive records
        // the run as failed, naming it (the ranks met before the run was
        // recorded: one killed before that leaves no record behind, not one
        // "running" forever that no watch could yet see die).
        if (record) {
            // The ranks beside this one train the same run: not load from
            // other processes (which flagged every one-node job busy).
            std::vector<std::int64_t> siblings;
            for (int other = 0; other < mpi.size(); ++other)
                if (other != mpi.rank() && ranks[std::size_t(other)].host == this_host())
                    siblings.push_back(ranks[std::size_t(other)].pid);
            record->count_as_own(std::move(siblings));
        }
        RankDeathWatch death_watch(ranks, mpi.rank(), [&](int dead_rank, const std::vector<bool>& dead) {
            for (int lower = 0; lower < mpi.rank(); ++lower)
                if (!dead[std::size_t(lower)]) return;  // a rank below records
            if (!guard) return;  // nothing recorded; mpirun names the dead rank
            const RankProcess& process = ranks[std::size_t(dead_rank)];
            record_death(*guard, config, command.history, rank_prefix,
                         "rank " + std::to_string(dead_rank) + " died (process " +
                             std::to_string(process.pid) + " on " + process.host + ")");
        });
        ConsoleObserver observer({.epochs = config.epochs,
                                  .verbose = command.verbose,
                                  .quiet = mpi.rank() != 0,
                                  .failure_prefix = rank_prefix,
                                  .record = record ? &*record : nullptr});
        Trainer trainer(config, {rank.device}, std::move(rank.part));
        // mpirun relays SIGINT and SIGTERM to every rank: each asks to stop,
        // the ranks stop at the same step, and rank 0 records the end.
        const StopOnInterrupt stop_on_interrupt(trainer);
        const RunOutcome outcome = trainer.run(observer);
        std::string end_problem;
        if (outcome != RunOutcome::failed) {
            // Every rank trained to the same end: a death until here is seen
            // and recorded. Rank 0 records the end at once: a rank killed
            // after this (mpirun then ends the job, rank 0 in the barrier
            // below) must not leave the run "running". Then none exits
            // (which would read as a death) while another still watches.
            mpi.barrier();
            death_watch.stop();
            if (record && mpi.rank() == 0) end_problem = record->finish(outcome, observer.failure());
            mpi.barrier();
        } else {
            death_watch.stop();
            if (record && mpi.rank() == 0) end_problem = record->finish(outcome, observer.failure());
        }
        if (outcome == RunOutcome::failed) {
            if (record && mpi.rank() != 0) record_failure_for_rank0(*record, config, command, observer.failure());
            mpi.abort(1);
        }
        if (outcome == RunOutcome::stopped) {
            // Every rank stops at the same step, whichever the signal reached.
            if (mpi.rank() == 0)
                std::fprintf(stderr, "dp-train: stopped by %s%s%s\n",
                             interrupting_signal() ? interrupting_signal_name()
                                                   : "a signal to another rank",
                             !record ? "" : end_problem.empty() ? "; the run is recorded as stopped"
                                                                : "; its end could not be recorded: ",
                             end_problem.c_str());
            return interrupting_signal() ? 128 + interrupting_signal() : 1;
        }
        return 0;
    } catch (const std::exception& error) {
        std::fprintf(stderr, "dp-train: %s%s\n", rank_prefix.c_str(), error.what());
        std::fflush(stderr);
        mpi.abort(1);
    }
}

int report_unreadable_command_line(const std::string& message, int& argc, char**& argv) {
    silence_interrupt_notices();  // mpirun's SIGTERM when a rank ends the job stops no run
    MpiSession mpi(argc, argv);
    if (mpi.rank() == 0) {
        std::fprintf(stderr, "dp-train: %s\n", message.c_str());
        std::fflush(stderr);
        rank_zero_started(mpi);
        return 2;
    }
    if (!rank_zero_started(mpi)) return 2;  // rank 0 said it (most likely the same)
    std::fprintf(stderr, "dp-train: rank %d: %s\n", mpi.rank(), message.c_str());
    std::fflush(stderr);
    mpi.abort(2);
}

}  // namespace dp
