#pragma once

namespace dp {

// How much slower one core computes while every core this process may use
// computes too: vCPUs that are hyperthreads of one physical core share its
// FMA units, and cores share memory bandwidth and clock headroom. A dense
// FMA loop (AVX-512 where the CPU has it, as oneDNN's kernels use; else plain) runs
// pinned to the first core alone, then on all cores at once; the result is
// the median time together over the median time alone (1 on one core).
// Takes about `budget_seconds`.
struct CoreSharingProbe {
    int cores = 1;
    double busy_slowdown = 1;
};
CoreSharingProbe probe_core_sharing(double budget_seconds = 0.3);

}  // namespace dp
