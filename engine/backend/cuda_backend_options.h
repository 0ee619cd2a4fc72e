#pragma once

#include <cstddef>
#include <cstdlib>
#include <string>

#include "core/env_flag.h"
#include "core/error.h"

namespace dp {

// How the CUDA backend trades speed for reproducibility and precision. Set by
// the environment, so every front end (dp-train, the workbench, the tests)
// gets the same switches without a new option each:
//   DP_CUDA_DETERMINISTIC=1  only cuDNN algorithms that are bit-reproducible
//   DP_CUDA_TF32=1           TF32 tensor cores in convolutions and linear
//                            layers (10-bit mantissa products; off by default,
//                            so results match the CPU's float32)
//   DP_CUDNN_WORKSPACE_MB=N  the cap on a convolution's scratch memory
//   DP_CUDNN_FP32_TRANSFORMS=1  FFT and Winograd convolution algorithms in
//                            fp32 too: faster on some shapes, but rounding
//                            10-100x coarser than direct convolution, so an
//                            fp32 run no longer agrees with the CPU to 1e-5
//                            (off by default; tf32 and bf16 always allow them)
//   DP_CUDA_BATCH_NORM=own|cudnn|cudnn-persistent  BatchNorm's training
//                            forward and backward (and evaluation) by our
//                            kernels (the default) or cuDNN's
//                            cudnnBatchNormalizationForwardTraining/Backward,
//                            mode SPATIAL or SPATIAL_PERSISTENT: one GPU run
//                            A/Bs them (synchronized BatchNorm's split ops
//                            stay ours: cuDNN has no such pieces)
//   DP_CUDA_GRAPHS=1         the training step as a CUDA Graph, captured after
//                            a warm-up step and replayed (step_graph.h; off by
//                            default until a GPU run has measured it)
//
// Not from the environment: bf16 (dp-train --precision bf16, set by
// make_backend) runs convolutions and linear layers on bfloat16 copies of
// their inputs with float32 accumulation: cuDNN's "pseudo bf16" (bf16
// tensors, float compute; its outputs, weight gradients included, come back
// as bf16 and are widened to float32, as PyTorch's CUDA autocast gives them)
// and cuBLAS's bf16 GEMM with float32 output.
enum class CudaBatchNorm { own, cudnn, cudnn_persistent };

struct CudaBackendOptions {
    bool deterministic = false;
    bool allow_tf32 = false;
    bool bf16 = false;
    bool fp32_transforms = false;
    std::size_t workspace_bytes = std::size_t(256) << 20;
    CudaBatchNorm batch_norm = CudaBatchNorm::own;
    bool step_graphs = false;
};

// The math a convolution runs with: FMA for fp32, whatever cuDNN's Find
// measured, so that fp32 stays float32 products; tensor ops (TF32 for float
// tensors, bf16 tensor cores) only when the precision asks for them.
enum class ConvMath { fma, tensor_ops };
inline ConvMath conv_math(const CudaBackendOptions& options) {
    return options.bf16 || options.allow_tf32 ? ConvMath::tensor_ops : ConvMath::fma;
}
// "fma", "fma+transforms", "tf32", "bf16": the math in a kernel-cache key.
inline std::string conv_math_name(const CudaBackendOptions& options) {
    if (options.bf16) return "bf16";
    if (options.allow_tf32) return "tf32";
    return options.fp32_transforms ? "fma+transforms" : "fma";
}

// A cached convolution choice: the algorithm and the math it runs with, in
// one int (algorithm * 4 + math).
inline int encode_conv_choice(int algorithm, ConvMath math) { return algorithm * 4 + int(math); }
// The algorithm of a cached choice; dp::Error when the choice's math is not
// `required`: an fp32 run would otherwise take TF32 from a cache entry.
inline int decode_conv_choice(int code, ConvMath required, const std::string& key) {
    if (code < 0 || code % 4 != int(required))
        throw Error("kernel cache entry '" + key + "' holds " + std::to_string(code) +
                    ", not an algorithm with " +
                    (required == ConvMath::fma ? "FMA math (fp32)" : "tensor-op math") +
                    ": run once with --retune to measure it again");
    return code / 4;
}

inline CudaBackendOptions cuda_backend_options_from_environment() {
    CudaBackendOptions options;
    options.deterministic = env_flag("DP_CUDA_DETERMINISTIC");
    options.allow_tf32 = env_flag("DP_CUDA_TF32");
    options.fp32_transforms = env_flag("DP_CUDNN_FP32_TRANSFORMS");
    options.step_graphs = env_flag("DP_CUDA_GRAPHS");
    if (const char* text = std::getenv("DP_CUDA_BATCH_NORM"); text && *text) {
        const std::string value(text);
        if (value == "own")
            options.batch_norm = CudaBatchNorm::own;
        else if (value == "cudnn")
            options.batch_norm = CudaBatchNorm::cudnn;
        else if (value == "cudnn-persistent")
            options.batch_norm = CudaBatchNorm::cudnn_persistent;
        else
            throw Error("DP_CUDA_BATCH_NORM must be own, cudnn or cudnn-persistent (got '" + value +
                        "')");
    }
    if (const char* text = std::getenv("DP_CUDNN_WORKSPACE_MB"); text && *text) {
        char* end = nullptr;
        const long megabytes = std::strtol(text, &end, 10);
        if (*end != '\0' || megabytes < 0 || megabytes > 1 << 20)
            throw Error(std::string("DP_CUDNN_WORKSPACE_MB must be a size in MiB (got '") + text +
                        "')");
        options.workspace_bytes = std::size_t(megabytes) << 20;
    }
    return options;
}

}  // namespace dp
