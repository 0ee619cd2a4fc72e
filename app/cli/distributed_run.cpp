#include "cli/distributed_run.h"

#include <cstdio>
#include <optional>

#include "cli/console_observer.h"
#include "cli/run_recorder.h"
#include "core/error.h"
#include "devices/device.h"
#include "parallel/mpi_communicator.h"
#include "parallel/mpi_session.h"
#ifdef DP_HAVE_CUDA
#include "parallel/nccl_communicator.h"
#endif
#include "train/trainer.h"

namespace dp {
namespace {

// The device of the rank with this local rank (its index on its machine):
// that GPU when the machine has GPUs, else one CPU core's device, round-robin
// over the cores this process may use (all of them, or the one core that
// mpirun bound it to).
DeviceInfo rank_device(int local_rank) {
    const auto devices = available_devices();
    std::vector<DeviceInfo> gpus;
    for (const auto& device : devices)
        if (device.id.starts_with("cuda:")) gpus.push_back(device);
    if (gpus.empty()) return devices[std::size_t(local_rank) % devices.size()];
    if (std::size_t(local_rank) >= gpus.size())
        throw Error("local rank " + std::to_string(local_rank) + " has no GPU of its own (this node has " +
                    std::to_string(gpus.size()) + "): start at most one rank per GPU on each node");
    return gpus[std::size_t(local_rank)];
}

// How the summary and the record name a rank's device: a CPU device by its
// core, as one process with every core would name it (a rank that mpirun
// bound to core 1 sees that core alone, as its cpu:0).
std::string rank_device_name(const DeviceInfo& device) {
    if (device.id.starts_with("cpu:") && device.cores.size() == 1)
        return "cpu:" + std::to_string(device.cores.front());
    return device.id;
}

// The communicator among every rank: MPI's collectives on host memory for CPU
// ranks; NCCL for GPU ranks, bootstrapped over MPI: rank 0 makes the NCCL id
// and broadcasts its 128 bytes, then every rank joins (ncclCommInitRank).
std::unique_ptr<Communicator> rank_communicator(const MpiSession& mpi, const DeviceInfo& device,
                                                const TrainConfig& config) {
    if (!device.id.starts_with("cuda:")) return std::make_unique<MpiCommunicator>();
#ifdef DP_HAVE_CUDA
    NcclUniqueId id{};
    if (mpi.rank() == 0) id = nccl_unique_id();
    mpi.broadcast_bytes(id.data(), id.size(), 0);
    return std::make_unique<NcclCommunicator>(id, mpi.rank(), mpi.size(), device.cuda_ordinal,
                                              config.allreduce);
#else
    (void)mpi, (void)config;
    throw Error("GPU ranks need the CUDA build (configure with -DDP_CUDA=ON)");
#endif
}

// Stops the job unless this rank's settings are rank 0's: a rank that
// trained with another batch size or seed would silently corrupt the run.
void check_same_settings(const MpiSession& mpi, const TrainConfig& config) {
    const std::string mine = shared_settings(config);
    const std::string difference = first_difference(mine, mpi.broadcast(mine, 0), "rank 0");
    if (!difference.empty())
        throw Error("settings differ from rank 0's: " + difference +
                    "; give every rank the same command line");
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
        const DeviceInfo device = rank_device(mpi.local_rank());
        config.devices = {device.id};
        ProcessPart part{rank_communicator(mpi, device, config), mpi.rank(),
                         mpi.all_gather(rank_device_name(device))};

        std::optional<RunRecorder> record;
        auto sinks = record_sinks(config, command.history);
        if (mpi.rank() == 0 && !sinks.empty()) {
            TrainConfig as_run = config;
            as_run.devices = part.rank_devices;
            as_run.allreduce = "mpi";
            RunRecord started = start_run_record(as_run, "mpirun");
            started.processes = mpi.size();
            record.emplace(std::move(started), std::move(sinks));
        }
        ConsoleObserver observer({.epochs = config.epochs,
                                  .verbose = command.verbose,
                                  .quiet = mpi.rank() != 0,
                                  .failure_prefix = rank_prefix,
                                  .record = record ? &*record : nullptr});
        const RunOutcome outcome = Trainer(config, std::move(part)).run(observer);
        if (record) record->finish(outcome, observer.failure());
        if (outcome == RunOutcome::failed) mpi.abort(1);
        return 0;
    } catch (const std::exception& error) {
        std::fprintf(stderr, "dp-train: %s%s\n", rank_prefix.c_str(), error.what());
        std::fflush(stderr);
        mpi.abort(1);
    }
}

}  // namespace dp
