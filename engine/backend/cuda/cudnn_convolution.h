#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <cudnn.h>

#include "backend/backend.h"
#include "backend/cuda_backend_options.h"
#include "backend/plan_cache.h"

namespace dp::cuda {

// The three convolution passes on cuDNN, without the bias (the backend adds
// it with its own kernels). Per shape, the descriptors are built once and
// each pass's algorithm comes from this machine's kernel cache
// (backend/kernel_choices.h); on a miss it is measured with cuDNN's Find and
// chosen by choose_algorithm (backend/algorithm_choice.h) under the
// workspace cap, deterministic-only when the options say so. Every pass
// then uses the one workspace it was given, so nothing is allocated.
// In bf16 precision (CudaBackendOptions::bf16) each shape also gets
// bfloat16 copies of its three tensors, from `allocate` when the shape is
// first met: the passes round their inputs into them, run cuDNN on bf16
// tensors with float compute, and widen the output back to float.
class CudnnConvolution {
public:
    // A pass's algorithm and the math type cuDNN measured it with.
    struct PassChoice {
        int algorithm = 0;
        cudnnMathType_t math = CUDNN_FMA_MATH;
    };

    CudnnConvolution(int device, cudnnHandle_t handle, void* workspace,
                     const CudaBackendOptions& options,
                     std::function<void*(std::size_t bytes)> allocate);
    ~CudnnConvolution();

    // y = conv(x, w); dx = dL/dx; dw = dL/dw. Batch > 0.
    void forward(const Conv2dShape& s, const float* x, const float* w, float* y);
    void backward_data(const Conv2dShape& s, const float* dy, const float* w, float* dx);
    void backward_filter(const Conv2dShape& s, const float* x, const float* dy, float* dw);

private:
    struct Plan;
    Plan& plan(const Conv2dShape& s);
    // The cached choice of `pass` for `s`, or find()'s, stored for later runs.
    PassChoice cached_choice(const char* pass, const Conv2dShape& s,
                             const std::function<PassChoice()>& find);
    // What cuDNN reads for the input x of n floats: x itself, or in bf16 x
    // rounded into its copy. What it writes the output y into: y, or the
    // copy, which finish() widens into y.
    const void* input(const float* x, std::size_t n, std::uint16_t* copy);
    void* output(float* y, std::uint16_t* copy) const;
    void finish(float* y, std::size_t n, const std::uint16_t* copy);

    int device_;
    cudnnHandle_t handle_;
    void* workspace_;
    CudaBackendOptions options_;
    std::function<void*(std::size_t)> allocate_;
    cudaStream_t stream_ = nullptr;  // the handle's, where conversions run
    // "cudnn 90100 fma ws256 | NVIDIA H100 ...": what a cached choice holds for.
    std::string machine_;
    PlanCache<Conv2dShape, std::unique_ptr<Plan>> plans_;
};

}  // namespace dp::cuda
