#pragma once

// Setting up one rank of an mpirun job (dp-train --distributed), as
// flashlight's distributedInit does: the settings check, the rank's device
// and the communicator among all ranks. Built only with DP_HAVE_MPI. The
// front end keeps what is its own: arguments, printing, exit codes and the
// run record.

#include <string>
#include <vector>

#include "devices/device.h"
#include "parallel/mpi_session.h"
#include "config/train_config.h"
#include "train/trainer.h"

namespace dp {

// Thrown by check_same_settings when rank 0 could not read its command line
// and has said so: the other ranks end without a word of their own.
class RankZeroCannotStart : public Error {
public:
    using Error::Error;
};

// Throws dp::Error unless this rank's shared settings (shared_settings) are
// rank 0's: a rank that trained with another batch size or seed would
// silently corrupt the run. Collective: every rank calls it, or in its place
// rank_zero_started.
void check_same_settings(const MpiSession& mpi, const TrainConfig& config);

// For a rank whose command line could not be read: takes part in
// check_same_settings' collective without settings. Returns whether rank 0
// starts a run (false on rank 0 itself, and where rank 0 could not read its
// command line either: then it has said why, once for the job).
bool rank_zero_started(const MpiSession& mpi);

// Throws dp::Error, the same line on every rank, unless every rank's
// data_fingerprint (config/training_data.h) is rank 0's: ranks given another
// folder or other files of the same size would train on mixed data, and of
// another size would run mismatched collectives. Names the ranks that differ
// and, for the first, what differs. Collective: every rank calls it, before
// the first collective of training (distributed_init's ProcessPart does).
void check_same_data(const MpiSession& mpi, const std::string& fingerprint);

// The device of the rank with this local rank (its index on its machine)
// among `available`, this machine's devices: that GPU when the machine has
// GPUs, else one CPU core's device, round-robin over the cores this process
// may use (all of them, or the one core that mpirun bound it to). Throws
// dp::Error for a rank beyond the machine's GPUs.
DeviceInfo rank_device(int local_rank, const std::vector<DeviceInfo>& available);

// How the summary and the record name a rank's device: a CPU device by its
// core, as one process with every core would name it (a rank that mpirun
// bound to core 1 sees that core alone, as its cpu:0).
std::string rank_device_name(const DeviceInfo& device);

// One rank, set up.
struct DistributedRank {
    DeviceInfo device;  // this rank's, resolved once for the run
    ProcessPart part;   // the communicator among every rank, this rank, every rank's device
};

// Takes this rank's device, gathers every rank's device and machine names
// and joins the communicator among every rank, with config.allreduce as its
// strategy: for CPU ranks its schedule as MPI messages on host memory (the
// sums of as many devices in one process, bit for bit); NCCL for GPU ranks,
// bootstrapped over MPI: rank 0 makes the
// NCCL id and broadcasts its 128 bytes, then every rank joins. Its
// collectives time out after config.collective_timeout_s, naming a missing
// rank as "rank 2 (node2, cpu:0)". Collective: every rank calls it, after
// check_same_settings.
DistributedRank distributed_init(const MpiSession& mpi, const TrainConfig& config);

}  // namespace dp
