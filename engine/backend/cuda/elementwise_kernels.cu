// Elementwise kernels, the bias kernels, bf16 conversions and dropout.
#include <cuda_bf16.h>

#include "backend/cuda/channel_reduction.cuh"
#include "backend/cuda/kernel_launch.cuh"
#include "backend/cuda/plane_grid.h"

namespace dp::cuda {
namespace {

__global__ void round_to_bf16_kernel(std::size_t n, const float* x, std::uint16_t* y) {
    grid_stride(n, [&](std::size_t i) { y[i] = __bfloat16_as_ushort(__float2bfloat16_rn(x[i])); });
}
__global__ void widen_bf16_kernel(std::size_t n, const std::uint16_t* x, float* y) {
    grid_stride(n, [&](std::size_t i) { y[i] = __bfloat162float(__ushort_as_bfloat16(x[i])); });
}

__global__ void fill_kernel(std::size_t n, float value, float* y) {
    grid_stride(n, [&](std::size_t i) { y[i] = value; });
}
__global__ void relu_forward_kernel(std::size_t n, const float* x, float* y) {
    grid_stride(n, [&](std::size_t i) { y[i] = x[i] > 0.f ? x[i] : 0.f; });
}
__global__ void relu_backward_kernel(std::size_t n, const float* y, const float* dy, float* dx) {
    grid_stride(n, [&](std::size_t i) { dx[i] = y[i] > 0.f ? dy[i] : 0.f; });
}
__global__ void add_kernel(std::size_t n, const float* a, const float* b, float* y) {
    grid_stride(n, [&](std::size_t i) { y[i] = a[i] + b[i]; });
}
__global__ void multiply_kernel(std::size_t n, const float* a, const float* b, float* y) {
    grid_stride(n, [&](std::size_t i) { y[i] = a[i] * b[i]; });
}
__global__ void scale_kernel(std::size_t n, float factor, float* x) {
    grid_stride(n, [&](std::size_t i) { x[i] *= factor; });
}
// Written as the reference's param -= lr * grad, kept from contracting into an FMA.
__global__ void sgd_update_kernel(std::size_t n, float lr, float* param, const float* grad) {
    grid_stride(n, [&](std::size_t i) { param[i] = __fsub_rn(param[i], __fmul_rn(lr, grad[i])); });
}
__global__ void add_channel_bias_kernel(PlaneGrid g, const float* bias, float* y) {
    for_each_plane_element(g, blockIdx.x, blockIdx.y, threadIdx.x,
                           [&](std::size_t i, int c) { y[i] += bias[c]; });
}
// Summed in double as the CPU backends sum it (reference_ops.h,
// conv2d_bias_backward): a bias gradient is a sum of many terms that mostly
// cancel, and a float sum of them is off by far more than the rounding of
// the result, enough to take GPU and CPU training 3e-3 apart over 20 LeNet
// steps (issue 25).
struct BiasGradientTerms {
    const float* dy;
    __device__ auto of_channel(int) const {
        const float* values = dy;
        return [values](std::size_t i) { return ChannelPartial{double(values[i]), 0.0}; };
    }
};
struct StoreBiasGradient {
    float* sums;
    __device__ void operator()(int c, ChannelPartial total) const { sums[c] = float(total.first); }
};

// host::DropoutDraw on the device: SplitMix64's output function hashes
// a counter from a key mixed from (seed, step). Must stay bit-identical to
// it; tests/gpu checks the masks against the CPU's.
constexpr std::uint64_t kGolden = 0x9e3779b97f4a7c15ull;
__host__ __device__ inline std::uint64_t splitmix64_mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

__global__ void dropout_kernel(std::size_t n, std::size_t unit_size, std::uint64_t key,
                               std::uint64_t offset, float p, float kept_scale, const float* x,
                               float* y, float* mask) {
    grid_stride(n, [&](std::size_t i) {
        const std::uint64_t unit = i / unit_size;
        const float uniform =
            float(splitmix64_mix(key + (offset + unit + 1) * kGolden) >> 40) * 0x1p-24f;
        const float value = uniform < p ? 0.f : kept_scale;
        mask[i] = value;
        y[i] = x[i] * value;
    });
}

}  // namespace

void round_to_bf16(const Launch& launch, std::size_t n, const float* x, std::uint16_t* y) {
    if (!n) return;
    round_to_bf16_kernel<<<blocks_for(n), kThreads, 0, launch.stream>>>(n, x, y);
    DP_CHECK_LAUNCH(launch, "round_to_bf16_kernel");
}

void widen_bf16(const Launch& launch, std::size_t n, const std::uint16_t* x, float* y) {
    if (!n) return;
    widen_bf16_kernel<<<blocks_for(n), kThreads, 0, launch.stream>>>(n, x, y);
    DP_CHECK_LAUNCH(launch, "widen_bf16_kernel");
}

void fill(const Launch& launch, std::size_t n, float value, float* y) {
    if (!n) return;
    fill_kernel<<<blocks_for(n), kThreads, 0, launch.stream>>>(n, value, y);
    DP_CHECK_LAUNCH(launch, "fill_kernel");
}

void relu_forward(const Launch& launch, std::size_t n, const float* x, float* y) {
    if (!n) return;
    relu_forward_kernel<<<blocks_for(n), kThreads, 0, launch.stream>>>(n, x, y);
    DP_CHECK_LAUNCH(launch, "relu_forward_kernel");
}

void relu_backward(const Launch& launch, std::size_t n, const float* y, const float* dy,
                   float* dx) {
    if (!n) return;
    relu_backward_kernel<<<blocks_for(n), kThreads, 0, launch.stream>>>(n, y, dy, dx);
    DP_CHECK_LAUNCH(launch, "relu_backward_kernel");
}

void add(const Launch& launch, std::size_t n, const float* a, const float* b, float* y) {
    if (!n) return;
    add_kernel<<<blocks_for(n), kThreads, 0, launch.stream>>>(n, a, b, y);
    DP_CHECK_LAUNCH(launch, "add_kernel");
}

void multiply(const Launch& launch, std::size_t n, const float* a, const float* b, float* y) {
    if (!n) return;
    multiply_kernel<<<blocks_for(n), kThreads, 0, launch.stream>>>(n, a, b, y);
    DP_CHECK_LAUNCH(launch, "multiply_kernel");
}

void scale(const Launch& launch, std::size_t n, float factor, float* x) {
    if (!n) return;
    scale_kernel<<<blocks_for(n), kThreads, 0, launch.stream>>>(n, factor, x);
    DP_CHECK_LAUNCH(launch, "scale_kernel");
}

void sgd_update(const Launch& launch, std::size_t n, float lr, float* param, const float* grad) {
    if (!n) return;
    sgd_update_kernel<<<blocks_for(n), kThreads, 0, launch.stream>>>(n, lr, param, grad);
    DP_CHECK_LAUNCH(launch, "sgd_update_kernel");
}

void add_channel_bias(const Launch& launch, int batch, int channels, std::size_t plane,
                      const float* bias, float* y) {
    const PlaneGrid g = plane_grid(batch, channels, plane);
    if (!g.blocks_y) return;
    add_channel_bias_kernel<<<dim3(g.blocks_x, g.blocks_y), kThreads, 0, launch.stream>>>(g, bias,
                                                                                       y);
    DP_CHECK_LAUNCH(launch, "add_channel_bias_kernel");
}

void channel_sums(const Launch& launch, int batch, int channels, std::size_t plane,
                  const float* dy, float* sums) {
    if (!channels) return;
    reduce_channels(launch, device_reduction_plan(launch, batch, channels, plane),
                    BiasGradientTerms{dy}, StoreBiasGradient{sums}, "channel_sums (bias gradient)");
}

void dropout_forward(const Launch& launch, std::size_t n, std::size_t unit_size,
                     const DropoutConfig& config, const float* x, float* y, float* mask) {
    if (!n) return;
    const std::uint64_t key = splitmix64_mix(splitmix64_mix(config.seed + kGolden) +
                                             config.step * kGolden);
    dropout_kernel<<<blocks_for(n), kThreads, 0, launch.stream>>>(
        n, unit_size, key, config.offset, config.p, 1.0f / (1.0f - config.p), x, y, mask);
    DP_CHECK_LAUNCH(launch, "dropout_kernel");
}

}  // namespace dp::cuda
