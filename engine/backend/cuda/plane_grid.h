#pragma once

// The launch geometry of the per-channel elementwise kernels (BatchNorm's
// normalize and backward, their fused ReLU forms, the bias add), written so
// that nvcc and the host compiler both compile it: the kernels follow it and
// a CPU test (tests/engine/test_channel_reduction_plan.cpp) runs it block by
// block against the flat loop.
//
// A flat grid-stride loop finds an element's channel as i / area % channels,
// a 64-bit divide and modulo per element (tens of instructions each on a
// GPU). Here a block row takes whole (n, c) planes: the channel is one 32-bit
// modulo per plane, the offset one multiply, and the loop over a plane's
// elements adds only. Small planes (ResNet-18's last stages have 16 or 49
// elements) share a block, threads_per_plane (a power of two up to the block)
// each, so that no thread idles for the want of a plane; a block row's planes
// are adjacent in memory, so its reads stay coalesced.

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "backend/cuda/channel_reduction_plan.h"  // DP_HOST_DEVICE

namespace dp::cuda {

inline constexpr unsigned kPlaneGridThreads = 256;
// gridDim.y's limit: block rows beyond it loop (stride blocks_y * planes_per_block).
inline constexpr unsigned kMaxBlockRows = 65535;
// Enough blocks along a large plane to fill a GPU; more loop.
inline constexpr unsigned kMaxBlocksPerPlane = 64;

struct PlaneGrid {
    std::uint32_t planes = 0;    // batch * channels
    std::uint32_t channels = 1;
    std::uint32_t area = 0;      // h * w: the elements of a plane
    std::uint32_t threads_per_plane = kPlaneGridThreads;  // a power of two
    std::uint32_t planes_per_block = 1;  // kPlaneGridThreads / threads_per_plane
    std::uint32_t blocks_x = 0, blocks_y = 0;  // the grid; zero for an empty tensor
};

constexpr std::uint32_t power_of_two_at_least(std::uint32_t n) {
    std::uint32_t p = 1;
    while (p < n) p *= 2;
    return p;
}

// The grid for batch x channels planes of `area` elements. Every count must
// fit 32 bits (the backend's tensors do: 2^31 floats is 8 GiB per plane set).
constexpr PlaneGrid plane_grid(int batch, int channels, std::size_t area) {
    PlaneGrid g;
    g.planes = std::uint32_t(std::max(batch, 0)) * std::uint32_t(std::max(channels, 0));
    g.channels = std::uint32_t(std::max(channels, 1));
    g.area = std::uint32_t(area);
    if (g.planes == 0 || g.area == 0) return g;
    g.threads_per_plane = std::min(kPlaneGridThreads, power_of_two_at_least(g.area));
    g.planes_per_block = kPlaneGridThreads / g.threads_per_plane;
    const std::uint32_t along =
        (g.area + g.threads_per_plane - 1) / g.threads_per_plane;  // blocks a plane needs
    g.blocks_x = std::min(along, kMaxBlocksPerPlane);
    g.blocks_y = std::min((g.planes + g.planes_per_block - 1) / g.planes_per_block, kMaxBlockRows);
    return g;
}

// Calls f(i, c) for each element (flat NCHW index i, channel c) that thread
// `thread` of block (block_x, block_y) visits, in its order.
template <typename F>
DP_HOST_DEVICE void for_each_plane_element(const PlaneGrid& g, std::uint32_t block_x,
                                           std::uint32_t block_y, std::uint32_t thread, F&& f) {
    const std::uint32_t lane = thread & (g.threads_per_plane - 1);
    const std::uint32_t plane_in_block = thread / g.threads_per_plane;
    const std::uint32_t plane_stride = g.blocks_y * g.planes_per_block;
    const std::uint32_t element_stride = g.blocks_x * g.threads_per_plane;
    for (std::uint32_t plane = block_y * g.planes_per_block + plane_in_block; plane < g.planes;
         plane += plane_stride) {
        const int c = int(plane % g.channels);
        const std::size_t base = std::size_t(plane) * g.area;
        for (std::uint32_t p = block_x * g.threads_per_plane + lane; p < g.area; p += element_stride)
            f(base + p, c);
    }
}

}  // namespace dp::cuda
