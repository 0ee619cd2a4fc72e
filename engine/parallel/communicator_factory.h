#pragma once

// Makes the communicators this engine has (the interface is collective/communicator.h).

#include <memory>
#include <string>
#include <vector>

#include "collective/communicator.h"
#include "devices/device.h"
#include "parallel/collective_timeout.h"

namespace dp {

// The strategies make_thread_communicator knows, in the order to show them:
// the all-reduces, then "dataparallel" (nn.DataParallel's step, see
// ReplicaGroup), whose collectives all go through device 0 as naive's do.
std::vector<std::string> thread_communicator_strategies();

// The collective schedule a strategy's communicator runs: "naive" for
// "dataparallel", else the strategy itself.
std::string collective_strategy(const std::string& strategy);

// Ranks are `ranks` threads of this process, buffers host memory (CPU
// devices); every collective runs on the calling thread. `strategy` is "naive" (d2l's:
// rank 0 sums everything, the others copy) or "ring" (NCCL's reduce-scatter
// then all-gather). Throws dp::Error for an unknown strategy or ranks < 1.
std::unique_ptr<Communicator> make_thread_communicator(const std::string& strategy, int ranks,
                                                       CollectiveTimeout timeout = {});

// The communicator among replicas on `devices`, all in this process: threads
// over host memory for CPU devices (strategy as above; with more than one
// device, started all-reduces run on a communication thread per device, see
// overlapping_communicator.h), NCCL for GPUs, device copies for replicas that
// share one GPU (replica_copy_communicator.h). A collective waits at most
// `timeout_seconds` for the others; its timeout message names ranks by their
// devices ("cpu:1").
std::unique_ptr<Communicator> make_local_communicator(const std::vector<DeviceInfo>& devices,
                                                      const std::string& strategy,
                                                      double timeout_seconds);

}  // namespace dp
