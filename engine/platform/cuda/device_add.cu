#include "platform/cuda/device_add.h"

#include <algorithm>

#include "platform/cuda/cuda_check.h"

namespace dp::cuda {
namespace {

// A grid-stride loop: any n with a bounded grid.
__global__ void add_into_kernel(std::size_t n, const float* __restrict__ src,
                                float* __restrict__ dst) {
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
        dst[i] += src[i];
}

}  // namespace

void add_into(cudaStream_t stream, int device, std::size_t n, const float* src, float* dst) {
    if (n == 0) return;
    constexpr unsigned threads = 256, max_blocks = 4096;
    const auto blocks = unsigned(std::min<std::size_t>((n + threads - 1) / threads, max_blocks));
    add_into_kernel<<<blocks, threads, 0, stream>>>(n, src, dst);
    DP_CUDA_CHECK(device, cudaGetLastError());
}

}  // namespace dp::cuda
