#pragma once

// Makes the communicators this engine has (the interface is collective/communicator.h).

#include <memory>
#include <string>
#include <vector>

#include "collective/communicator.h"
#include "config/all_reduce_strategy.h"
#include "devices/device.h"
#include "parallel/collective_timeout.h"

namespace dp {

// The collective schedule (collective_schedule.h) a strategy's communicator
// runs: "naive" for naive and dataparallel (nn.DataParallel's step, see
// ReplicaGroup, whose collectives all go through device 0 as naive's do),
// "ring" for ring and for an earlier MPI record's mpi.
std::string collective_strategy(AllReduceStrategy strategy);

// Ranks are `ranks` threads of this process, buffers host memory (CPU
// devices); every collective runs on the calling thread, on the strategy's
// schedule (collective_strategy). Throws dp::Error for ranks < 1.
std::unique_ptr<Communicator> make_thread_communicator(AllReduceStrategy strategy, int ranks,
                                                       CollectiveTimeout timeout = {});

// The communicator among replicas on `devices`, all in this process: threads
// over host memory for CPU devices (strategy as above; with more than one
// device, started all-reduces run on a communication thread per device, see
// overlapping_communicator.h), NCCL for GPUs, device copies for replicas that
// share one GPU (replica_copy_communicator.h). A collective waits at most
// `timeout_seconds` for the others; its timeout message names ranks by their
// devices ("cpu:1").
std::unique_ptr<Communicator> make_local_communicator(const std::vector<DeviceInfo>& devices,
                                                      AllReduceStrategy strategy,
                                                      double timeout_seconds);

}  // namespace dp
