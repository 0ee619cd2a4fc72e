// Average, max and global average pooling. Windows as in
// reference::for_each_pool2d_tap: [o * stride - pad, o * stride - pad + kernel)
// in each dimension, padding taps skipped, taps in row-major order.
#include <string>

#include "backend/cuda/kernel_launch.cuh"
#include "core/error.h"

namespace dp::cuda {
namespace {

struct PoolGeometry {
    int channels, in_h, in_w, out_h, out_w, kernel, stride, pad;
};

PoolGeometry geometry(const Pool2dShape& s) {
    return {s.channels, s.in_h, s.in_w, s.out_h(), s.out_w(), s.kernel, s.stride, s.pad};
}

// The outputs o in [first, last] whose window covers input position i:
// o * stride - pad <= i < o * stride - pad + kernel.
struct OutputRange {
    int first, last;
};
__device__ OutputRange covering_outputs(int i, int out_size, const PoolGeometry& g) {
    const int low = i + g.pad - g.kernel + 1;  // o * stride >= low
    const int first = low <= 0 ? 0 : (low + g.stride - 1) / g.stride;
    const int last = min((i + g.pad) / g.stride, out_size - 1);
    return {first, last};
}

// kRelu: the window reads max(x, 0), nn.ReLU fused before the pool.
template <bool kRelu>
__global__ void avg_pool2d_forward_kernel(std::size_t n, PoolGeometry g, const float* x,
                                          float* y) {
    grid_stride(n, [&](std::size_t o) {
        const int ow = int(o % g.out_w), oh = int(o / g.out_w % g.out_h);
        const std::size_t plane = o / (std::size_t(g.out_w) * g.out_h);
        const float* x_plane = x + plane * g.in_h * g.in_w;
        float sum = 0;
        for (int kh = 0; kh < g.kernel; ++kh) {
            const int ih = oh * g.stride - g.pad + kh;
            if (ih < 0 || ih >= g.in_h) continue;
            for (int kw = 0; kw < g.kernel; ++kw) {
                const int iw = ow * g.stride - g.pad + kw;
                if (iw < 0 || iw >= g.in_w) continue;
                const float value = x_plane[ih * g.in_w + iw];
                sum += kRelu ? fmaxf(value, 0.0f) : value;
            }
        }
        y[o] = sum / float(g.kernel * g.kernel);
    });
}

// relu_x, if not null: the fused ReLU's input, dx = 0 where it is not > 0.
__global__ void avg_pool2d_backward_kernel(std::size_t n, PoolGeometry g, const float* dy,
                                           const float* relu_x, float* dx) {
    grid_stride(n, [&](std::size_t i) {
        const int iw = int(i % g.in_w), ih = int(i / g.in_w % g.in_h);
        const std::size_t plane = i / (std::size_t(g.in_w) * g.in_h);
        const float* dy_plane = dy + plane * g.out_h * g.out_w;
        const float window_area = float(g.kernel * g.kernel);
        const OutputRange rows = covering_outputs(ih, g.out_h, g);
        const OutputRange cols = covering_outputs(iw, g.out_w, g);
        float sum = 0;
        for (int oh = rows.first; oh <= rows.last; ++oh)
            for (int ow = cols.first; ow <= cols.last; ++ow)
                sum += dy_plane[oh * g.out_w + ow] / window_area;
        dx[i] = relu_x && !(relu_x[i] > 0.0f) ? 0.0f : sum;
    });
}

// The first maximum wins: a later tap replaces it only if strictly greater.
__global__ void max_pool2d_forward_kernel(std::size_t n, PoolGeometry g, const float* x, float* y,
                                          std::int32_t* winners) {
    grid_stride(n, [&](std::size_t o) {
        const int ow = int(o % g.out_w), oh = int(o / g.out_w % g.out_h);
        const std::size_t plane_start = o / (std::size_t(g.out_w) * g.out_h) * g.in_h * g.in_w;
        std::int32_t winner = -1;
        float best = 0;
        for (int kh = 0; kh < g.kernel; ++kh) {
            const int ih = oh * g.stride - g.pad + kh;
            if (ih < 0 || ih >= g.in_h) continue;
            for (int kw = 0; kw < g.kernel; ++kw) {
                const int iw = ow * g.stride - g.pad + kw;
                if (iw < 0 || iw >= g.in_w) continue;
                const auto index = std::int32_t(plane_start + ih * g.in_w + iw);
                if (winner < 0 || x[index] > best) {
                    best = x[index];
                    winner = index;
                }
            }
        }
        y[o] = best;
        winners[o] = winner;
    });
}

__global__ void max_pool2d_backward_kernel(std::size_t n, PoolGeometry g, const float* dy,
                                           const std::int32_t* winners, float* dx) {
    grid_stride(n, [&](std::size_t i) {
        const int iw = int(i % g.in_w), ih = int(i / g.in_w % g.in_h);
        const std::size_t plane_outputs =
            i / (std::size_t(g.in_w) * g.in_h) * g.out_h * g.out_w;
        const OutputRange rows = covering_outputs(ih, g.out_h, g);
        const OutputRange cols = covering_outputs(iw, g.out_w, g);
        float sum = 0;
        for (int oh = rows.first; oh <= rows.last; ++oh)
            for (int ow = cols.first; ow <= cols.last; ++ow) {
                const std::size_t o = plane_outputs + oh * g.out_w + ow;
                if (winners[o] == std::int32_t(i)) sum += dy[o];
            }
        dx[i] = sum;
    });
}

__global__ void global_avg_pool2d_forward_kernel(std::size_t planes, std::size_t area,
                                                 const float* x, float* y) {
    grid_stride(planes, [&](std::size_t p) {
        float sum = 0;
        for (std::size_t i = 0; i < area; ++i) sum += x[p * area + i];
        y[p] = sum / float(area);
    });
}

__global__ void global_avg_pool2d_backward_kernel(std::size_t n, std::size_t area,
                                                  const float* dy, float* dx) {
    grid_stride(n, [&](std::size_t i) { dx[i] = dy[i / area] / float(area); });
}

// Winners are int32 input indices; the reference's padding limit keeps every
// window non-empty.
void check_shape(const Pool2dShape& s) {
    if (s.pad < 0 || 2 * s.pad > s.kernel)
        throw Error("pool2d padding " + std::to_string(s.pad) + " is not within half the kernel " +
                    std::to_string(s.kernel));
    if (s.input_size() > std::size_t(INT32_MAX))
        throw Error("max pooling input of " + std::to_string(s.input_size()) +
                    " elements is too large for the CUDA backend's 32-bit indices");
}

// Average pooling, of max(x, 0) when kRelu.
template <bool kRelu>
void launch_avg_pool2d_forward(const Launch& launch, const Pool2dShape& s, const float* x,
                               float* y) {
    check_shape(s);
    const std::size_t n = s.output_size();
    if (!n) return;
    avg_pool2d_forward_kernel<kRelu>
        <<<blocks_for(n), kThreads, 0, launch.stream>>>(n, geometry(s), x, y);
    DP_CHECK_LAUNCH(launch, "avg_pool2d_forward_kernel");
}

// relu_x: the fused ReLU's input, or null for plain average pooling.
void launch_avg_pool2d_backward(const Launch& launch, const Pool2dShape& s, const float* relu_x,
                                const float* dy, float* dx) {
    check_shape(s);
    const std::size_t n = s.input_size();
    if (!n) return;
    avg_pool2d_backward_kernel<<<blocks_for(n), kThreads, 0, launch.stream>>>(n, geometry(s), dy,
                                                                             relu_x, dx);
    DP_CHECK_LAUNCH(launch, "avg_pool2d_backward_kernel");
}

}  // namespace

std::size_t max_pool2d_workspace_bytes(const Pool2dShape& s) {
    return s.output_size() * sizeof(std::int32_t);
}

void avg_pool2d_forward(const Launch& launch, const Pool2dShape& s, const float* x, float* y) {
    launch_avg_pool2d_forward<false>(launch, s, x, y);
}

void avg_pool2d_backward(const Launch& launch, const Pool2dShape& s, const float* dy, float* dx) {
    launch_avg_pool2d_backward(launch, s, nullptr, dy, dx);
}

void relu_avg_pool2d_forward(const Launch& launch, const Pool2dShape& s, const float* x, float* y) {
    launch_avg_pool2d_forward<true>(launch, s, x, y);
}

void relu_avg_pool2d_backward(const Launch& launch, const Pool2dShape& s, const float* x,
                              const float* dy, float* dx) {
    launch_avg_pool2d_backward(launch, s, x, dy, dx);
}

void max_pool2d_forward(const Launch& launch, const Pool2dShape& s, const float* x, float* y,
                        std::int32_t* winners) {
    check_shape(s);
    const std::size_t n = s.output_size();
    if (!n) return;
    max_pool2d_forward_kernel<<<blocks_for(n), kThreads, 0, launch.stream>>>(n, geometry(s), x, y,
                                                                            winners);
    DP_CHECK_LAUNCH(launch, "max_pool2d_forward_kernel");
}

void max_pool2d_backward(const Launch& launch, const Pool2dShape& s, const float* dy,
                         const std::int32_t* winners, float* dx) {
    check_shape(s);
    const std::size_t n = s.input_size();
    if (!n) return;
    max_pool2d_backward_kernel<<<blocks_for(n), kThreads, 0, launch.stream>>>(n, geometry(s), dy,
                                                                             winners, dx);
    DP_CHECK_LAUNCH(launch, "max_pool2d_backward_kernel");
}

void global_avg_pool2d_forward(const Launch& launch, const NchwShape& s, const float* x,
                               float* y) {
    const std::size_t planes = std::size_t(s.batch) * s.channels, area = std::size_t(s.h) * s.w;
    if (!planes || !area) return;
    global_avg_pool2d_forward_kernel<<<blocks_for(planes), kThreads, 0, launch.stream>>>(
        planes, area, x, y);
    DP_CHECK_LAUNCH(launch, "global_avg_pool2d_forward_kernel");
}

void global_avg_pool2d_backward(const Launch& launch, const NchwShape& s, const float* dy,
                                float* dx) {
    const std::size_t area = std::size_t(s.h) * s.w;
    const std::size_t n = s.size();
    if (!n) return;
    global_avg_pool2d_backward_kernel<<<blocks_for(n), kThreads, 0, launch.stream>>>(n, area, dy,
                                                                                    dx);
    DP_CHECK_LAUNCH(launch, "global_avg_pool2d_backward_kernel");
}

}  // namespace dp::cuda
