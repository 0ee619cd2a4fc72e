#pragma once

#include <vector>

#include "core/machine_load.h"
#include "parallel/allreduce_probe.h"
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

// One probe of this machine's thread link: the link it gives and the fit it
// came from, whose back-to-back bandwidth the link's source quotes.
struct ThreadLinkProbe {
    LinkModel link;
    LatencyBandwidthFit fit;
    double gigabytes_per_second() const;
};

// The thread link probed several times: one probe on a machine shared with
// other work read 38.9, 4.9 and 35.4 GB/s in three launches, so a single one
// says little. `link` takes the probes' median alpha, beta and wake; its
// source quotes the median bandwidth, the range and the probe count, and
// says when other processes kept the machine busy meanwhile (`load`).
struct ThreadLinkMeasurement {
    LinkModel link;
    std::vector<ThreadLinkProbe> probes;  // in the order measured
    MachineLoad load;                     // other processes' CPU use over all the probes
    double median_gigabytes_per_second() const;
    double least_gigabytes_per_second() const;
    double most_gigabytes_per_second() const;
};

// measure_thread_link `probes` times (>= 1), each on a short budget, so that
// all of them take a second or two.
ThreadLinkMeasurement measure_thread_link_repeatedly(AllReduceAlgorithm algorithm, int devices,
                                                     int probes = 5);

// How CPU devices share this machine's cores: busy_slowdown fitted from
// `runs` when one ran on 1 device and another on 2..cores devices (the
// workload's own slowdown), else from the FMA probe
// (devices/core_sharing_probe.h). `source` says which.
CoreSharing measure_core_sharing(const std::vector<TrainConfig>& configs,
                                 const std::vector<RunSummary>& runs);

}  // namespace dp
