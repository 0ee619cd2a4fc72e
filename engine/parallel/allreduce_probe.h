#pragma once

#include <span>
#include <string>
#include <vector>

namespace dp {

// One measured all-reduce size: its bytes and its median seconds.
struct ProbeSample {
    double bytes = 0, seconds = 0;
};

// The least-squares line t = alpha + beta * bytes through `samples`: the
// alpha-beta (Hockney) model of one collective. Alpha and beta are kept at
// or above zero (a negative intercept from noise is refitted through the
// origin). dp::Error unless the samples hold at least 2 different sizes.
struct LatencyBandwidthFit {
    double alpha = 0;  // seconds
    double beta = 0;   // seconds per byte
};
LatencyBandwidthFit fit_latency_bandwidth(std::span<const ProbeSample> samples);

// bench-allreduce in brief: `ranks` threads pinned round-robin to this
// process's cores, as CPU devices are, all-reduce 4 KiB to 2 MiB buffers
// through the engine's thread communicator of `strategy` ("naive", "ring"),
// a few times each back to back; each size's median goes into the fit.
// Then the wake-up: in training a device enters the all-reduce after tens of
// milliseconds of compute, and its peers' threads, asleep at the barrier or
// having used their time slice, must be scheduled again first. On a machine
// shared with other work that costs a scheduler slice (milliseconds), far
// more than the back-to-back fit says; the probe computes 10 ms before each
// of a few 512 KiB all-reduces and keeps the median excess over the fit.
// Stops adding repetitions once `budget_seconds` have passed (it takes at
// least two of each). 1 rank: no samples, a zero fit. Throws dp::Error for
// more than kMaxProbeRanks ranks, and whatever a rank's thread threw (once
// every thread is joined: it never ends the process).
// The most ranks a probe starts (threads, each with 2 MiB of buffers): a
// record of 1,024 ranks is probed on this many, not on 1,024 threads.
inline constexpr int kMaxProbeRanks = 64;

struct AllReduceProbe {
    std::string strategy;
    int ranks = 0;
    int cores = 0;  // the cores the ranks shared
    std::vector<ProbeSample> samples;
    LatencyBandwidthFit fit;
    double wake_seconds = 0;  // the excess of an all-reduce entered after compute
};
AllReduceProbe probe_all_reduce(const std::string& strategy, int ranks, double budget_seconds = 0.6);

}  // namespace dp
