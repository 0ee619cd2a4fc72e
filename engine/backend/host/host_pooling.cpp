// ReLU fused before average pooling (host_kernels.h), plane by plane on the
// OpenMP threads. Each output sums its window's taps in row-major order and
// divides by the window's area, as reference::relu_avg_pool2d_forward does,
// so the two agree to the bit; a plane's arithmetic never depends on the
// thread that runs it.

#include <algorithm>
#include <cstring>

#include "backend/host/host_kernels.h"
#include "backend/host/vector_clones.h"

namespace dp::host {
namespace {

// LeNet's 2x2, stride-2 windows run on these vectors: 4 outputs from 8
// floats of each of their two input rows. (Eight floats, not sixteen: its
// rows are 13 and 4 outputs long.)
using Inputs = float __attribute__((vector_size(8 * sizeof(float))));
using Outputs = float __attribute__((vector_size(4 * sizeof(float))));
// Vectors pass by reference only: clang rejects a 32-byte vector passed or
// returned by value in the baseline clone (an ABI that differs with AVX).
template <typename V>
[[gnu::always_inline]] inline void load(V& v, const float* p) {
    std::memcpy(&v, p, sizeof v);
}
template <typename V>
[[gnu::always_inline]] inline void store(float* p, const V& v) {
    std::memcpy(p, &v, sizeof v);
}

// relu(-0) is +0, as in the reference and the vector loops.
[[gnu::always_inline]] inline float relu(float x) { return x > 0.0f ? x : 0.0f; }

struct PlaneGeometry {
    int in_h, in_w, out_h, out_w;
};

// y = mean of max(x, 0) over each 2x2 block of one plane.
DP_VECTOR_CLONES void relu_avg_pool_2x2_plane(const float* x, float* y, PlaneGeometry g) {
    const Inputs zero{};
    for (int i = 0; i < g.out_h; ++i) {
        const float* top = x + std::size_t(2 * i) * g.in_w;
        const float* bottom = top + g.in_w;
        float* out = y + std::size_t(i) * g.out_w;
        int j = 0;
        for (; j + 4 <= g.out_w; j += 4) {
            Inputs t, b;
            load(t, top + 2 * j);
            load(b, bottom + 2 * j);
            t = t > zero ? t : zero;
            b = b > zero ? b : zero;
            const Outputs sum = ((__builtin_shufflevector(t, t, 0, 2, 4, 6) +
                                  __builtin_shufflevector(t, t, 1, 3, 5, 7)) +
                                 __builtin_shufflevector(b, b, 0, 2, 4, 6)) +
                                __builtin_shufflevector(b, b, 1, 3, 5, 7);
            store(out + j, sum / 4.0f);
        }
        for (; j < g.out_w; ++j) {
            const float sum =
                ((relu(top[2 * j]) + relu(top[2 * j + 1])) + relu(bottom[2 * j])) +
                relu(bottom[2 * j + 1]);
            out[j] = sum / 4.0f;
        }
    }
}

// dx = dy / 4 of its 2x2 block where x > 0, else 0, over one plane; the
// rows and columns past the last block get 0.
DP_VECTOR_CLONES void relu_avg_pool_2x2_backward_plane(const float* x, const float* dy, float* dx,
                                                       PlaneGeometry g) {
    const Inputs zero{};
    for (int r = 0; r < 2 * g.out_h; ++r) {
        const float* x_row = x + std::size_t(r) * g.in_w;
        const float* dy_row = dy + std::size_t(r / 2) * g.out_w;
        float* dx_row = dx + std::size_t(r) * g.in_w;
        int j = 0;
        for (; j + 4 <= g.out_w; j += 4) {
            Outputs share;
            Inputs x_values;
            load(share, dy_row + j);
            load(x_values, x_row + 2 * j);
            share /= 4.0f;
            const Inputs spread = __builtin_shufflevector(share, share, 0, 0, 1, 1, 2, 2, 3, 3);
            store(dx_row + 2 * j, Inputs(x_values > zero ? spread : zero));
        }
        for (; j < g.out_w; ++j) {
            const float share = dy_row[j] / 4.0f;
            dx_row[2 * j] = x_row[2 * j] > 0.0f ? share : 0.0f;
            dx_row[2 * j + 1] = x_row[2 * j + 1] > 0.0f ? share : 0.0f;
        }
        std::fill(dx_row + 2 * g.out_w, dx_row + g.in_w, 0.0f);
    }
    std::fill(dx + std::size_t(2 * g.out_h) * g.in_w, dx + std::size_t(g.in_h) * g.in_w, 0.0f);
}

// Any other window: taps in row-major order, padding skipped (counted as
// zeros in the average).
template <typename Tap>
void for_each_window_tap(const Pool2dShape& s, int oh, int ow, Tap&& tap) {
    for (int kh = 0; kh < s.kernel; ++kh) {
        const int ih = oh * s.stride - s.pad + kh;
        if (ih < 0 || ih >= s.in_h) continue;
        for (int kw = 0; kw < s.kernel; ++kw) {
            const int iw = ow * s.stride - s.pad + kw;
            if (iw >= 0 && iw < s.in_w) tap(std::size_t(ih) * s.in_w + iw);
        }
    }
}

void relu_avg_pool_plane(const Pool2dShape& s, const float* x, float* y) {
    const float area = float(s.kernel * s.kernel);
    for (int oh = 0; oh < s.out_h(); ++oh)
        for (int ow = 0; ow < s.out_w(); ++ow) {
            float sum = 0;
            for_each_window_tap(s, oh, ow, [&](std::size_t i) { sum += relu(x[i]); });
            y[std::size_t(oh) * s.out_w() + ow] = sum / area;
        }
}

// Overlapping windows add their shares in output order.
void relu_avg_pool_backward_plane(const Pool2dShape& s, const float* x, const float* dy,
                                  float* dx) {
    const std::size_t in = std::size_t(s.in_h) * s.in_w;
    std::fill_n(dx, in, 0.0f);
    const float area = float(s.kernel * s.kernel);
    for (int oh = 0; oh < s.out_h(); ++oh)
        for (int ow = 0; ow < s.out_w(); ++ow) {
            const float share = dy[std::size_t(oh) * s.out_w() + ow] / area;
            for_each_window_tap(s, oh, ow, [&](std::size_t i) { dx[i] += share; });
        }
    for (std::size_t i = 0; i < in; ++i)
        if (!(x[i] > 0.0f)) dx[i] = 0.0f;
}

bool is_2x2_blocks(const Pool2dShape& s) { return s.kernel == 2 && s.stride == 2 && s.pad == 0; }

// Calls body(input offset, output offset) for every N x C plane, split over the threads.
template <typename Body>
void for_each_pool_plane(const Pool2dShape& s, Body&& body) {
    check_pool2d_shape(s);
    const std::size_t in = std::size_t(s.in_h) * s.in_w;
    const std::size_t out = std::size_t(s.out_h()) * s.out_w();
    const std::int64_t planes = std::int64_t(s.batch) * s.channels;
#pragma omp parallel for schedule(static)
    for (std::int64_t p = 0; p < planes; ++p) body(std::size_t(p) * in, std::size_t(p) * out);
}

}  // namespace

void relu_avg_pool2d_forward(const Pool2dShape& s, const float* x, float* y) {
    const PlaneGeometry g{s.in_h, s.in_w, s.out_h(), s.out_w()};
    for_each_pool_plane(s, [&](std::size_t in, std::size_t out) {
        if (is_2x2_blocks(s))
            relu_avg_pool_2x2_plane(x + in, y + out, g);
        else
            relu_avg_pool_plane(s, x + in, y + out);
    });
}

void relu_avg_pool2d_backward(const Pool2dShape& s, const float* x, const float* dy, float* dx) {
    const PlaneGeometry g{s.in_h, s.in_w, s.out_h(), s.out_w()};
    for_each_pool_plane(s, [&](std::size_t in, std::size_t out) {
        if (is_2x2_blocks(s))
            relu_avg_pool_2x2_backward_plane(x + in, dy + out, dx + in, g);
        else
            relu_avg_pool_backward_plane(s, x + in, dy + out, dx + in);
    });
}

}  // namespace dp::host
