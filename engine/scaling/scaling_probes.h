#pragma once

#include <vector>

#include "scaling/scaling_predictor.h"

namespace dp {

// The predictor's measurements of this machine, each well under a second:
// what dp-train --predict and the workbench's Scaling tab run.

// This machine's threads as a link for `algorithm` on `devices` CPU devices:
// an all-reduce probe (parallel/allreduce_probe.h) on that many ranks,
// fitted and divided by the strategy's terms. `devices` >= 2; more than
// parallel/allreduce_probe.h's kMaxProbeRanks are probed on that many
// threads, as the link's source says.
LinkModel measure_thread_link(AllReduceAlgorithm algorithm, int devices);

// How CPU devices share this machine's cores: busy_slowdown fitted from
// `runs` when one ran on 1 device and another on 2..cores devices (the
// workload's own slowdown), else from the FMA probe
// (devices/core_sharing_probe.h). `source` says which.
CoreSharing measure_core_sharing(const std::vector<TrainConfig>& configs,
                                 const std::vector<RunSummary>& runs);

}  // namespace dp
