#pragma once

// How the CUDA backend sums each channel of an NCHW tensor over N x H x W
// (BatchNorm statistics and backward sums, bias gradients), written so that
// nvcc and the host compiler both compile it: the kernels follow this plan,
// and a CPU test (tests/engine/test_channel_reduction_plan.cpp) runs the
// same plan over random data.
//
// A channel's count = batch * plane elements, in the order k = n * plane + p,
// are cut into `slices` contiguous ranges; one block of kReductionThreads
// threads sums one (channel, slice), so a few channels still fill the GPU.
// Thread t of a block reads k = begin + t, begin + t + kReductionThreads, ...
// in that order. Its sums are folded within each warp, then across the warps,
// both in tree_fold's order; the block's partial goes to a workspace, and a
// second kernel adds a channel's partials in ascending slice order. Every
// order is fixed by the plan alone, so runs are bit-identical; there are no
// atomics on the sums.

#include <algorithm>
#include <cstddef>

#if defined(__CUDACC__)
#define DP_HOST_DEVICE __host__ __device__
#else
#define DP_HOST_DEVICE
#endif
// On the GPU, several of a thread's loads in flight at once (the adds still
// run in the loop's order); nothing on the host.
#if defined(__CUDA_ARCH__)
#define DP_UNROLL_READS _Pragma("unroll 4")
#else
#define DP_UNROLL_READS
#endif

namespace dp::cuda {

inline constexpr int kReductionThreads = 256;
inline constexpr int kReductionWarp = 32;
inline constexpr int kReductionWarps = kReductionThreads / kReductionWarp;
// Enough resident blocks per SM to keep its memory requests in flight.
inline constexpr int kReductionBlocksPerSm = 8;
// A slice smaller than this costs more in its launch share than it reads.
inline constexpr std::size_t kMinSliceElements = 4 * kReductionThreads;
// Partials the backend's workspace holds: channels beyond it are reduced
// in chunks of channels_per_chunk.
inline constexpr std::size_t kReductionPartialsCapacity = 16384;
// gridDim.y's limit: the slices of a channel are the grid's y.
inline constexpr int kMaxSlices = 65535;

// Two double sums carried together (sum and sum of squares, or the two
// BatchNorm backward sums; a bias gradient uses only `first`).
struct ChannelPartial {
    double first = 0, second = 0;
};
DP_HOST_DEVICE constexpr ChannelPartial operator+(ChannelPartial a, ChannelPartial b) {
    return {a.first + b.first, a.second + b.second};
}

struct ChannelReductionPlan {
    int channels = 0;
    std::size_t plane = 0;         // h * w
    std::size_t count = 0;         // batch * plane: the elements of a channel
    std::size_t slice_length = 1;  // elements per slice, the last one possibly fewer
    int slices = 1;
};

constexpr std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// Slices per channel: enough blocks for kReductionBlocksPerSm on each of
// the device's SMs, no slice under kMinSliceElements, within the workspace
// and grid limits; then the fewest slices of that length, so none is empty.
constexpr ChannelReductionPlan plan_channel_reduction(int batch, int channels, std::size_t plane,
                                                      int sm_count) {
    ChannelReductionPlan plan;
    plan.channels = channels;
    plan.plane = plane;
    plan.count = std::size_t(batch) * plane;
    const std::size_t wanted =
        ceil_div(std::size_t(std::max(sm_count, 1)) * kReductionBlocksPerSm,
                 std::size_t(std::max(channels, 1)));
    const std::size_t by_size = std::max<std::size_t>(1, plan.count / kMinSliceElements);
    const std::size_t slices = std::min({wanted, by_size, kReductionPartialsCapacity,
                                         std::size_t(kMaxSlices)});
    plan.slice_length = std::max<std::size_t>(1, ceil_div(plan.count, slices));
    plan.slices = int(std::max<std::size_t>(1, ceil_div(plan.count, plan.slice_length)));
    return plan;
}

// The channels one launch pair covers, so that their partials fit the workspace.
constexpr int channels_per_chunk(const ChannelReductionPlan& plan) {
    return int(std::max<std::size_t>(1, kReductionPartialsCapacity / std::size_t(plan.slices)));
}

DP_HOST_DEVICE constexpr std::size_t slice_begin(const ChannelReductionPlan& plan, int slice) {
    const std::size_t begin = std::size_t(slice) * plan.slice_length;
    return begin < plan.count ? begin : plan.count;
}
DP_HOST_DEVICE constexpr std::size_t slice_end(const ChannelReductionPlan& plan, int slice) {
    return slice_begin(plan, slice + 1);
}

// Where a (channel, slice) partial lives in the workspace, channel counted
// from the chunk's first.
DP_HOST_DEVICE constexpr std::size_t partial_index(const ChannelReductionPlan& plan,
                                                   int chunk_channel, int slice) {
    return std::size_t(chunk_channel) * std::size_t(plan.slices) + std::size_t(slice);
}

// Calls read(i) with the NCHW index of each element thread `thread` of
// block (channel, slice) reads, in its order. The (n, p) pair advances by
// the stride's quotient and remainder, so the loop divides only once.
template <typename Read>
DP_HOST_DEVICE void for_each_thread_element(const ChannelReductionPlan& plan, int channel,
                                            int slice, int thread, Read&& read) {
    const std::size_t begin = slice_begin(plan, slice) + std::size_t(thread);
    const std::size_t end = slice_end(plan, slice);
    if (begin >= end) return;
    const std::size_t step_n = kReductionThreads / plan.plane;
    const std::size_t step_p = kReductionThreads % plan.plane;
    std::size_t n = begin / plan.plane, p = begin % plan.plane;
    DP_UNROLL_READS
    for (std::size_t k = begin; k < end; k += kReductionThreads) {
        read((n * std::size_t(plan.channels) + std::size_t(channel)) * plan.plane + p);
        n += step_n;
        p += step_p;
        if (p >= plan.plane) {
            p -= plan.plane;
            ++n;
        }
    }
}

// values[0] = the sum of values[0..width), width a power of two, in a
// fixed tree: at each halving offset, values[i] += values[i + offset]. A
// warp's __shfl_down_sync loop over offsets width/2 .. 1 leaves lane 0 the
// same sum.
template <typename T>
DP_HOST_DEVICE constexpr T tree_fold(T* values, int width) {
    for (int offset = width / 2; offset > 0; offset /= 2)
        for (int i = 0; i < offset; ++i) values[i] = values[i] + values[i + offset];
    return values[0];
}

// A block's partial from its threads' sums, in the kernel's order: each
// warp's tree, then the tree of the warps' sums. (The kernel does this with
// shuffles; this is the same order on arrays.) Overwrites thread_sums.
template <typename T>
DP_HOST_DEVICE constexpr T fold_block(T* thread_sums) {
    T warp_sums[kReductionWarps];
    for (int w = 0; w < kReductionWarps; ++w)
        warp_sums[w] = tree_fold(thread_sums + w * kReductionWarp, kReductionWarp);
    return tree_fold(warp_sums, kReductionWarps);
}

// A channel's total from its slices' partials, added in ascending slice order.
DP_HOST_DEVICE constexpr ChannelPartial combine_slices(const ChannelReductionPlan& plan,
                                                       const ChannelPartial* partials,
                                                       int chunk_channel) {
    ChannelPartial total = partials[partial_index(plan, chunk_channel, 0)];
    for (int s = 1; s < plan.slices; ++s)
        total = total + partials[partial_index(plan, chunk_channel, s)];
    return total;
}

}  // namespace dp::cuda
