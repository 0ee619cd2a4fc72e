#include "cli/distributed_run.h"

#include <cstdio>
#include <memory>
#include <optional>
#include <vector>

#include "cli/console_observer.h"
#include "cli/interrupt.h"
#include "cli/record_sinks.h"
#include "core/error.h"
#include "parallel/mpi_session.h"
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

}  // namespace

int train_distributed(const CliCommand& command, int& argc, char**& argv) {
    MpiSession mpi(argc, argv);
    const std::string rank_prefix = "rank " + std::to_string(mpi.rank()) + ": ";
    try {
        TrainConfig config = command.config;
        check_same_settings(mpi, config);
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
        // rank sums alike); rank 0 writes it.
        TrainConfig as_run = config;
        as_run.devices = rank.part.rank_devices;
        as_run.allreduce = "mpi";
        RunRecord started = start_run_record(as_run, "mpirun");
        started.processes = mpi.size();
        started.id = mpi.broadcast(started.id, 0);
        started.started_at = mpi.broadcast(started.started_at, 0);
        std::optional<RecordedRun> record;
        if (!config.record_path.empty() || command.history)
            record.emplace(std::move(started), mpi.rank() == 0
                                                   ? record_sinks(config, command.history)
                                                   : std::vector<std::unique_ptr<RunRecordSink>>{});
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
        if (record && mpi.rank() == 0) record->finish(outcome, observer.failure());
        if (outcome == RunOutcome::failed) {
            if (record && mpi.rank() != 0) record_failure_for_rank0(*record, config, command, observer.failure());
            mpi.abort(1);
        }
        if (outcome == RunOutcome::stopped) {
            // Every rank stops at the same step, whichever the signal reached.
            if (mpi.rank() == 0)
                std::fprintf(stderr, "dp-train: stopped by %s; the run is recorded as stopped\n",
                             interrupting_signal() ? interrupting_signal_name()
                                                   : "a signal to another rank");
            return interrupting_signal() ? 128 + interrupting_signal() : 1;
        }
        return 0;
    } catch (const std::exception& error) {
        std::fprintf(stderr, "dp-train: %s%s\n", rank_prefix.c_str(), error.what());
        std::fflush(stderr);
        mpi.abort(1);
    }
}

}  // namespace dp
