#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <utility>
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
LinkModel measure_thread_link(AllReduceStrategy algorithm, int devices);

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
ThreadLinkMeasurement measure_thread_link_repeatedly(AllReduceStrategy algorithm, int devices,
                                                     int probes = 5);

// This machine's thread links, each measured once per process on first use
// and kept: the Classroom's ring all-reduce and the Scaling tab quote the
// same link, not two probes that disagree on a shared machine. Measuring
// takes a second or two, so callers ask from a worker thread; measurements
// run one at a time (two at once would slow each other on the same cores).
// A measurement that fails throws its dp::Error to the caller that asked
// and is tried again on the next use.
class ThreadLinkCache {
public:
    using Measure = std::function<ThreadLinkMeasurement(AllReduceStrategy, int devices)>;
    explicit ThreadLinkCache(Measure measure);

    // The link of `algorithm` on `devices` threads, measured now if it has
    // not been; DataParallel's is naive's (its gradient sum).
    ThreadLinkMeasurement get(AllReduceStrategy algorithm, int devices);
    // The same if measured already; none otherwise. Never waits for a
    // measurement in flight: the GUI thread may ask.
    std::optional<ThreadLinkMeasurement> find(AllReduceStrategy algorithm, int devices) const;
    // How many measurements have been taken, failed ones too.
    int measurements_taken() const;

private:
    using Key = std::pair<AllReduceStrategy, int>;
    static Key key(AllReduceStrategy algorithm, int devices);
    Measure measure_;
    std::mutex measuring_;           // held while a measurement runs
    mutable std::mutex links_mutex_;  // guards links_ and taken_, held briefly
    std::map<Key, ThreadLinkMeasurement> links_;
    int taken_ = 0;
};

// The process's cache: measure_thread_link_repeatedly, 5 probes each.
ThreadLinkCache& thread_link_cache();

// How CPU devices share this machine's cores: busy_slowdown fitted from
// `runs` when one ran on 1 device and another on 2..cores devices (the
// workload's own slowdown), else from the FMA probe
// (devices/core_sharing_probe.h). `source` says which.
CoreSharing measure_core_sharing(const std::vector<TrainConfig>& configs,
                                 const std::vector<RunSummary>& runs);

}  // namespace dp
