#pragma once

// cuDNN's BatchNorm (cudnnBatchNormalizationForwardTraining, ...Backward and
// ...ForwardInference, mode SPATIAL or SPATIAL_PERSISTENT) for the Backend's
// three whole-layer BatchNorm ops, behind DP_CUDA_BATCH_NORM=cudnn or
// cudnn-persistent (cuda_backend_options.h), so that one GPU run A/Bs it
// against our kernels (scripts/gpu-check's speed stage). cuDNN saves
// 1 / sqrt(var + eps) where the Backend passes the biased variance on: a
// one-thread-per-channel kernel converts each way. cuDNN updates the running
// variance with the unbiased variance, as PyTorch (which calls it) does.

#include <functional>
#include <memory>

#include <cudnn.h>

#include "backend/backend.h"
#include "backend/cuda/cuda_kernels.h"
#include "backend/cuda_backend_options.h"
#include "backend/plan_cache.h"

namespace dp::cuda {

class CudnnBatchNorm {
public:
    CudnnBatchNorm(int device, cudnnHandle_t handle, CudaBatchNorm choice,
                   std::function<void*(std::size_t bytes)> allocate);
    ~CudnnBatchNorm();

    // Whether cuDNN runs shape s: the switch is on and the shape has elements
    // (cuDNN refuses an empty batch; our kernels handle it and count < 2's error).
    bool runs(const BatchNorm2dShape& s) const;

    void forward_training(const Launch& launch, const BatchNorm2dShape& s, const float* x,
                          const float* gamma, const float* beta, float* y, float* mean,
                          float* var, float* running_mean, float* running_var);
    void forward_given_stats(const BatchNorm2dShape& s, const float* x, const float* gamma,
                             const float* beta, const float* mean, const float* var, float* y);
    void backward(const Launch& launch, const BatchNorm2dShape& s, const float* x,
                  const float* dy, const float* gamma, const float* mean, const float* var,
                  float* dx, float* dgamma, float* dbeta);

private:
    struct Plan;
    Plan& plan(const BatchNorm2dShape& s);

    int device_;
    cudnnHandle_t handle_;
    CudaBatchNorm choice_;
    std::function<void*(std::size_t)> allocate_;
    PlanCache<BatchNorm2dShape, std::unique_ptr<Plan>> plans_;
};

}  // namespace dp::cuda
