#pragma once

// NHWC ("channels last"), the layout cuDNN's tensor-core convolutions read
// without transposes, beside the Backend's NCHW: the index maps between
// them, conversions, and reference NHWC ops (convolution forward with OHWI
// weights, cuDNN's NHWC filter layout, and BatchNorm's statistics) that
// tests/engine checks against the NCHW reference ops. No backend runs NHWC
// yet: these are what a CUDA NHWC path (tf32 and bf16) is to be checked by.

#include <cstddef>
#include <vector>

#include "backend/backend.h"
#include "backend/reference/reference_ops.h"

namespace dp::reference {

inline std::size_t nchw_index(const NchwShape& s, int n, int c, int h, int w) {
    return ((std::size_t(n) * s.channels + c) * s.h + h) * s.w + w;
}
inline std::size_t nhwc_index(const NchwShape& s, int n, int c, int h, int w) {
    return ((std::size_t(n) * s.h + h) * s.w + w) * s.channels + c;
}

// Where the element at NCHW index i lies in NHWC, and the inverse.
inline std::size_t nhwc_index_of_nchw(const NchwShape& s, std::size_t i) {
    const std::size_t area = std::size_t(s.h) * s.w;
    const std::size_t p = i % area, nc = i / area;
    const std::size_t c = nc % std::size_t(s.channels), n = nc / std::size_t(s.channels);
    return (n * area + p) * std::size_t(s.channels) + c;
}
inline std::size_t nchw_index_of_nhwc(const NchwShape& s, std::size_t j) {
    const std::size_t area = std::size_t(s.h) * s.w;
    const std::size_t c = j % std::size_t(s.channels), np = j / std::size_t(s.channels);
    const std::size_t p = np % area, n = np / area;
    return (n * std::size_t(s.channels) + c) * area + p;
}

template <typename T>
std::vector<T> to_nhwc(const NchwShape& s, const std::vector<T>& nchw) {
    std::vector<T> nhwc(nchw.size());
    for (std::size_t i = 0; i < nchw.size(); ++i) nhwc[nhwc_index_of_nchw(s, i)] = nchw[i];
    return nhwc;
}
template <typename T>
std::vector<T> to_nchw(const NchwShape& s, const std::vector<T>& nhwc) {
    std::vector<T> nchw(nhwc.size());
    for (std::size_t j = 0; j < nhwc.size(); ++j) nchw[nchw_index_of_nhwc(s, j)] = nhwc[j];
    return nchw;
}

// The activations and weights of a convolution as NchwShapes: x, y, and
// the weights OIHW read as N = out, C = in (OHWI is their NHWC).
inline NchwShape conv2d_input_nchw(const Conv2dShape& s) {
    return {s.batch, s.in_channels, s.in_h, s.in_w};
}
inline NchwShape conv2d_output_nchw(const Conv2dShape& s) {
    return {s.batch, s.out_channels, s.out_h(), s.out_w()};
}
inline NchwShape conv2d_weights_nchw(const Conv2dShape& s) {
    return {s.out_channels, s.in_channels, s.kernel, s.kernel};
}

// y = conv(x, w) + b in NHWC: x NHWC, w OHWI, y NHWC; b may be null. The
// NCHW reference's taps in its order, each index mapped: the same sums, so
// the same bits as conv2d_forward's NCHW y, rearranged.
template <typename T>
void conv2d_forward_nhwc(const Conv2dShape& s, const T* x, const T* w, const T* b, T* y) {
    const NchwShape xs = conv2d_input_nchw(s), ys = conv2d_output_nchw(s),
                    ws = conv2d_weights_nchw(s);
    for (std::size_t j = 0; j < s.output_size(); ++j)
        y[j] = b ? b[j % std::size_t(s.out_channels)] : T(0);  // the channel innermost
    for_each_conv2d_tap(s, [&](std::size_t xi, std::size_t wi, std::size_t yi) {
        y[nhwc_index_of_nchw(ys, yi)] += x[nhwc_index_of_nchw(xs, xi)] * w[nhwc_index_of_nchw(ws, wi)];
    });
}

// BatchNorm's batch mean and biased variance per channel of an NHWC x: a
// strided reduction (every channels-th element), two passes in double.
template <typename T>
void batch_norm2d_statistics_nhwc(const BatchNorm2dShape& s, const T* x, T* mean, T* var) {
    const std::size_t count = std::size_t(s.count_per_channel());
    const std::size_t channels = std::size_t(s.channels);
    for (std::size_t c = 0; c < channels; ++c) {
        double sum = 0;
        for (std::size_t k = 0; k < count; ++k) sum += double(x[k * channels + c]);
        const double m = sum / double(count);
        double squares = 0;
        for (std::size_t k = 0; k < count; ++k) {
            const double d = double(x[k * channels + c]) - m;
            squares += d * d;
        }
        mean[c] = T(m);
        var[c] = T(squares / double(count));
    }
}

}  // namespace dp::reference
