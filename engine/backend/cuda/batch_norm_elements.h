#pragma once

// What BatchNorm's elementwise kernels compute per element, for nvcc and the
// host compiler alike: the kernels call these, and a CPU test
// (tests/engine/test_channel_reduction_plan.cpp) checks them, fused with the
// ReLU or not, against the reference's BatchNorm and ReLU. In float, as
// host_kernels.cpp's batch_norm2d functions compute.

#include <cmath>

#include "backend/cuda/channel_reduction_plan.h"  // DP_HOST_DEVICE

namespace dp::cuda {

DP_HOST_DEVICE inline float batch_norm_inverse_std(float var, float eps) {
    return 1.0f / sqrtf(var + eps);
}

// gamma * xhat + beta, and with `relu` max(that, 0): BN-apply and the ReLU
// after it in one pass, the BatchNorm's own output never stored.
template <bool relu>
DP_HOST_DEVICE inline float batch_norm_apply(float x, float gamma, float beta, float mean,
                                             float inv_std) {
    const float y = gamma * (x - mean) * inv_std + beta;
    if constexpr (relu) return y > 0.f ? y : 0.f;
    return y;
}

// The gradient reaching the BatchNorm's output: dy itself, or with `relu`
// dy where the ReLU's output (relu_y) is positive, else 0 (relu_backward's
// rule, applied as the BatchNorm backward reads dy, so the masked gradient
// is never stored).
template <bool relu>
DP_HOST_DEVICE inline float batch_norm_output_gradient(float dy, float relu_y) {
    if constexpr (relu) return relu_y > 0.f ? dy : 0.f;
    (void)relu_y;
    return dy;
}

// dx = gamma * inv_std * (dy - mean(dy) - xhat * mean(dy * xhat)), the means
// over the channel's `count` elements given as dbeta / count and dgamma / count.
DP_HOST_DEVICE inline float batch_norm_input_gradient(float x, float dy, float gamma, float mean,
                                                      float inv_std, float mean_dy,
                                                      float mean_dy_xhat) {
    const float xhat = (x - mean) * inv_std;
    return gamma * inv_std * (dy - mean_dy - xhat * mean_dy_xhat);
}

}  // namespace dp::cuda
