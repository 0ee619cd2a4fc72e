#pragma once

// The per-channel reductions' kernels: a thin shell over
// channel_reduction_plan.h. `Terms` says what one element adds (its
// of_channel(c) returns a device callable of the element's NCHW index, so
// per-channel values are read once per thread); `Finish` says what a
// channel's total writes.

#include "backend/cuda/channel_reduction_plan.h"
#include "backend/cuda/kernel_launch.cuh"
#include "core/error.h"

namespace dp::cuda {

static_assert(kThreads == kReductionThreads, "the reduction plan assumes the kernels' block size");

// fold_block's order with shuffles: each warp's tree, then warp 0 folds the
// warps' sums. Thread 0 gets the block's sum.
__device__ inline ChannelPartial block_partial(ChannelPartial value) {
    constexpr unsigned kAllLanes = 0xffffffffu;
    for (int offset = kReductionWarp / 2; offset > 0; offset /= 2)
        value = value + ChannelPartial{__shfl_down_sync(kAllLanes, value.first, offset),
                                       __shfl_down_sync(kAllLanes, value.second, offset)};
    // Plain doubles: a __shared__ variable takes no initializer.
    __shared__ double warp_first[kReductionWarps], warp_second[kReductionWarps];
    const int lane = int(threadIdx.x) % kReductionWarp, warp = int(threadIdx.x) / kReductionWarp;
    if (lane == 0) {
        warp_first[warp] = value.first;
        warp_second[warp] = value.second;
    }
    __syncthreads();
    if (warp == 0) {
        value = lane < kReductionWarps ? ChannelPartial{warp_first[lane], warp_second[lane]}
                                       : ChannelPartial{};
        for (int offset = kReductionWarps / 2; offset > 0; offset /= 2)
            value = value + ChannelPartial{__shfl_down_sync(kAllLanes, value.first, offset),
                                           __shfl_down_sync(kAllLanes, value.second, offset)};
    }
    return value;
}

// Block (x, y) sums channel first_channel + x over slice y.
template <typename Terms>
__global__ void channel_partials_kernel(ChannelReductionPlan plan, int first_channel, Terms terms,
                                        ChannelPartial* partials) {
    const int chunk_channel = int(blockIdx.x), slice = int(blockIdx.y);
    const int channel = first_channel + chunk_channel;
    const auto element_terms = terms.of_channel(channel);
    ChannelPartial sum;
    for_each_thread_element(plan, channel, slice, int(threadIdx.x),
                            [&](std::size_t i) { sum = sum + element_terms(i); });
    sum = block_partial(sum);
    if (threadIdx.x == 0) partials[partial_index(plan, chunk_channel, slice)] = sum;
}

// One thread per channel of the chunk.
template <typename Finish>
__global__ void channel_combine_kernel(ChannelReductionPlan plan, int first_channel,
                                       int chunk_channels, const ChannelPartial* partials,
                                       Finish finish) {
    const int chunk_channel = int(blockIdx.x * blockDim.x + threadIdx.x);
    if (chunk_channel >= chunk_channels) return;
    finish(first_channel + chunk_channel, combine_slices(plan, partials, chunk_channel));
}

inline ChannelReductionPlan device_reduction_plan(const Launch& launch, int batch, int channels,
                                                  std::size_t plane) {
    int sm_count = 0;
    DP_CUDA_CHECK(launch.device, cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount,
                                                        launch.device));
    return plan_channel_reduction(batch, channels, plane, sm_count);
}

// Both kernels per chunk of channels, on the launch's workspace.
template <typename Terms, typename Finish>
void reduce_channels(const Launch& launch, const ChannelReductionPlan& plan, Terms terms,
                     Finish finish, const char* kernel_name) {
    if (!launch.reduction_partials)
        throw Error(std::string(kernel_name) + ": the launch has no reduction workspace");
    const int chunk = channels_per_chunk(plan);
    for (int first = 0; first < plan.channels; first += chunk) {
        const int chunk_channels = std::min(chunk, plan.channels - first);
        channel_partials_kernel<<<dim3(unsigned(chunk_channels), unsigned(plan.slices)), kThreads,
                                  0, launch.stream>>>(plan, first, terms,
                                                      launch.reduction_partials);
        DP_CHECK_LAUNCH(launch, kernel_name);
        channel_combine_kernel<<<(chunk_channels + kThreads - 1) / kThreads, kThreads, 0,
                                 launch.stream>>>(plan, first, chunk_channels,
                                                  launch.reduction_partials, finish);
        DP_CHECK_LAUNCH(launch, kernel_name);
    }
}

}  // namespace dp::cuda
