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
    // The cached algorithm of `pass` for `s`, or find()'s, stored for later
    // runs with the math it runs with (conv_math: FMA for fp32, whatever
    // Find measured); a cached entry with other math throws.
    int cached_algorithm(const char* pass, const Conv2dShape& s, const std::function<int()>& find);
    // Sets the precision's math on the plan's descriptor: before Find and
    // before every pass, so no pass runs with math another pass left there.
    void set_math(const Plan& p) const;
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
    // "cudnn 90100 fma ws256 | NVIDIA H100 ...": what a cached choice holds
    // for (the math name says fma, fma+transforms, tf32 or bf16).
    std::string machine_;
    PlanCache<Conv2dShape, std::unique_ptr<Plan>> plans_;
};

}  // namespace dp::cuda
