#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace dp {

// One measured candidate for an op (cuDNN's convolution algorithms, as its
// Find functions report them): host-side, so the choice is tested on the CPU.
struct AlgorithmTiming {
    int algorithm = 0;
    bool ran = false;  // the library ran it successfully for this shape
    float milliseconds = 0;
    std::size_t workspace_bytes = 0;
    bool deterministic = false;
    // FFT or Winograd: the product in another basis, rounding 10-100x
    // coarser than a direct sum of products in float32.
    bool transform = false;
    // Timed with tensor-op math (TF32 for float tensors): not what an fp32
    // run, which always runs with FMA math, would get.
    bool tensor_op_timing = false;
};

// What a candidate must be to be chosen.
struct AlgorithmRules {
    std::size_t workspace_cap = 0;
    bool deterministic_only = false;  // bit-identical results run to run
    bool transforms = true;           // FFT and Winograd allowed
    bool fma_only = false;            // fp32: tensor-op timings do not count
};

// Which cuDNN convolution algorithms are FFT or Winograd, by the numbers of
// cuDNN 9's enums for each pass ("forward", "backward_data",
// "backward_weights"); cudnn_convolution.cpp checks the numbers against them.
inline bool is_transform_algorithm(std::string_view pass, int algorithm) {
    if (pass == "forward") return algorithm >= 4 && algorithm <= 7;  // FFT, FFT_TILING, WINOGRAD(_NONFUSED)
    if (pass == "backward_data") return algorithm >= 2 && algorithm <= 5;  // the same four
    return algorithm == 2 || algorithm >= 4;  // FFT, WINOGRAD(_NONFUSED), FFT_TILING
}

// The index of the fastest candidate that ran and meets `rules`; the earlier
// in the list on equal times. None when no candidate qualifies.
inline std::optional<std::size_t> choose_algorithm(std::span<const AlgorithmTiming> candidates,
                                                   const AlgorithmRules& rules) {
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        const AlgorithmTiming& candidate = candidates[i];
        if (!candidate.ran || candidate.workspace_bytes > rules.workspace_cap) continue;
        if (rules.deterministic_only && !candidate.deterministic) continue;
        if (!rules.transforms && candidate.transform) continue;
        if (rules.fma_only && candidate.tensor_op_timing) continue;
        if (!best || candidate.milliseconds < candidates[*best].milliseconds) best = i;
    }
    return best;
}

// The one-line error for a shape with no usable candidate.
inline std::string no_algorithm_message(const std::string& op, const std::string& shape,
                                        const AlgorithmRules& rules) {
    return "no " + std::string(rules.deterministic_only ? "deterministic " : "") + op +
           " algorithm for " + shape + " within the " +
           std::to_string(rules.workspace_cap / (1024 * 1024)) +
           " MiB workspace cap (raise DP_CUDNN_WORKSPACE_MB" +
           (rules.deterministic_only ? ", unset DP_CUDA_DETERMINISTIC" : "") +
           (rules.transforms ? "" : " or set DP_CUDNN_FP32_TRANSFORMS=1") + ")";
}

}  // namespace dp
