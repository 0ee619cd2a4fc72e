#pragma once

#include <cstddef>
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
class CudnnConvolution {
public:
    // A pass's algorithm and the math type cuDNN measured it with.
    struct PassChoice {
        int algorithm = 0;
        cudnnMathType_t math = CUDNN_FMA_MATH;
    };

    CudnnConvolution(int device, cudnnHandle_t handle, void* workspace,
                     const CudaBackendOptions& options);
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

    int device_;
    cudnnHandle_t handle_;
    void* workspace_;
    CudaBackendOptions options_;
    // "cudnn 90100 fma ws256 | NVIDIA H100 ...": what a cached choice holds for.
    std::string machine_;
    PlanCache<Conv2dShape, std::unique_ptr<Plan>> plans_;
};

}  // namespace dp::cuda
