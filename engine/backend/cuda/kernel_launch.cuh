#pragma once

// What the kernel files share: the launch geometry of elementwise kernels,
// the launch check, and a deterministic block reduction.

#include <algorithm>
#include <cstddef>

#include "platform/cuda/cuda_check.h"
#include "backend/cuda/cuda_kernels.h"

namespace dp::cuda {

constexpr int kThreads = 256;

// Blocks for a grid-stride loop over n elements: enough to fill any GPU,
// few enough that each thread does several elements of a large tensor.
inline unsigned blocks_for(std::size_t n) {
    return unsigned(std::min<std::size_t>((n + kThreads - 1) / kThreads, 8192));
}

#define DP_CHECK_LAUNCH(launch, kernel_name) \
    ::dp::cuda::check(cudaGetLastError(), kernel_name, __FILE__, __LINE__, (launch).device)

// Calls f(i) for every i < n, spread over the grid.
template <typename F>
__device__ void grid_stride(std::size_t n, F&& f) {
    for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        f(i);
}

// Every thread's `value` combined by `op` over a block of kThreads threads,
// in a fixed tree order (so sums are reproducible run to run); every thread
// gets the result.
template <typename T, typename Op>
__device__ T block_reduce(T value, Op op) {
    __shared__ T partial[kThreads];
    __syncthreads();  // the previous call's readers are done with `partial`
    partial[threadIdx.x] = value;
    __syncthreads();
    for (int stride = kThreads / 2; stride > 0; stride /= 2) {
        if (int(threadIdx.x) < stride)
            partial[threadIdx.x] = op(partial[threadIdx.x], partial[threadIdx.x + stride]);
        __syncthreads();
    }
    return partial[0];
}

template <typename T>
__device__ T block_sum(T value) {
    return block_reduce(value, [](T a, T b) { return a + b; });
}

}  // namespace dp::cuda
