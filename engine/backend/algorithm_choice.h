#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>

namespace dp {

// One measured candidate for an op (cuDNN's convolution algorithms, as its
// Find functions report them): host-side, so the choice is tested on the CPU.
struct AlgorithmTiming {
    int algorithm = 0;
    bool ran = false;  // the library ran it successfully for this shape
    float milliseconds = 0;
    std::size_t workspace_bytes = 0;
    bool deterministic = false;
};

// The index of the fastest candidate that ran, needs at most `workspace_cap`
// bytes and, when `deterministic_only`, gives bit-identical results run to
// run; the earlier in the list on equal times. None when no candidate qualifies.
inline std::optional<std::size_t> choose_algorithm(std::span<const AlgorithmTiming> candidates,
                                                   std::size_t workspace_cap,
                                                   bool deterministic_only) {
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        const AlgorithmTiming& candidate = candidates[i];
        if (!candidate.ran || candidate.workspace_bytes > workspace_cap) continue;
        if (deterministic_only && !candidate.deterministic) continue;
        if (!best || candidate.milliseconds < candidates[*best].milliseconds) best = i;
    }
    return best;
}

// The one-line error for a shape with no usable candidate.
inline std::string no_algorithm_message(const std::string& op, const std::string& shape,
                                        std::size_t workspace_cap, bool deterministic_only) {
    return "no " + std::string(deterministic_only ? "deterministic " : "") + op +
           " algorithm for " + shape + " within the " +
           std::to_string(workspace_cap / (1024 * 1024)) +
           " MiB workspace cap (raise DP_CUDNN_WORKSPACE_MB" +
           (deterministic_only ? " or unset DP_CUDA_DETERMINISTIC)" : ")");
}

}  // namespace dp
