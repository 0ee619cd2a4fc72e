#pragma once

// Naive loop implementations of every op of dp::Backend: the reference that
// the fast backends are tested against, written to be checked by reading.
// T is float (ReferenceBackend) or double (the gradient checks of the tests).
// Layouts are PyTorch's: activations NCHW, conv weights OIHW, linear weights
// [out, in]. Backward ops overwrite their outputs, like the Backend's.

#include "backend/backend.h"
#include "core/error.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>

namespace dp::reference {

// Element counts of the tensors of each op.
inline std::size_t conv2d_input_size(const Conv2dShape& s) {
    return std::size_t(s.batch) * s.in_channels * s.in_h * s.in_w;
}
inline std::size_t conv2d_weight_size(const Conv2dShape& s) {
    return std::size_t(s.out_channels) * s.in_channels * s.kernel * s.kernel;
}
inline std::size_t conv2d_output_size(const Conv2dShape& s) {
    return std::size_t(s.batch) * s.out_channels * s.out_h() * s.out_w();
}
inline std::size_t pool2d_input_size(const Pool2dShape& s) {
    return std::size_t(s.batch) * s.channels * s.in_h * s.in_w;
}
inline std::size_t pool2d_output_size(const Pool2dShape& s) {
    return std::size_t(s.batch) * s.channels * s.out_h() * s.out_w();
}
inline std::size_t linear_input_size(const LinearShape& s) {
    return std::size_t(s.batch) * s.in_features;
}
inline std::size_t linear_weight_size(const LinearShape& s) {
    return std::size_t(s.out_features) * s.in_features;
}
inline std::size_t linear_output_size(const LinearShape& s) {
    return std::size_t(s.batch) * s.out_features;
}

// Offset of element [i0][i1][i2][i3] of a row-major tensor of dims [*][d1][d2][d3].
inline std::size_t offset4(int i0, int i1, int i2, int i3, int d1, int d2, int d3) {
    return ((std::size_t(i0) * d1 + i1) * d2 + i2) * d3 + i3;
}

// ---------------------------------------------------------------- conv2d

// Calls tap(x_index, w_index, y_index) once for every product of the
// convolution, y[n][o][oh][ow] += x[n][i][ih][iw] * w[o][i][kh][kw] with
// ih = oh * stride - pad + kh and iw = ow * stride - pad + kw, skipping the
// taps that land in the zero padding. The forward pass and both backward
// passes are this one loop nest, so they cannot disagree about indexing.
template <typename Tap>
void for_each_conv2d_tap(const Conv2dShape& s, Tap&& tap) {
    const int out_h = s.out_h(), out_w = s.out_w();
    for (int n = 0; n < s.batch; ++n)
        for (int o = 0; o < s.out_channels; ++o)
            for (int oh = 0; oh < out_h; ++oh)
                for (int ow = 0; ow < out_w; ++ow) {
                    const std::size_t y_index = offset4(n, o, oh, ow, s.out_channels, out_h, out_w);
                    for (int i = 0; i < s.in_channels; ++i)
                        for (int kh = 0; kh < s.kernel; ++kh) {
                            const int ih = oh * s.stride - s.pad + kh;
                            if (ih < 0 || ih >= s.in_h) continue;
                            for (int kw = 0; kw < s.kernel; ++kw) {
                                const int iw = ow * s.stride - s.pad + kw;
                                if (iw < 0 || iw >= s.in_w) continue;
                                tap(offset4(n, i, ih, iw, s.in_channels, s.in_h, s.in_w),
                                    offset4(o, i, kh, kw, s.in_channels, s.kernel, s.kernel),
                                    y_index);
                            }
                        }
                }
}

// y = conv(x, w) + b
template <typename T>
void conv2d_forward(const Conv2dShape& s, const T* x, const T* w, const T* b, T* y) {
    const std::size_t plane = std::size_t(s.out_h()) * s.out_w();
    for (int n = 0; n < s.batch; ++n)
        for (int o = 0; o < s.out_channels; ++o)
            std::fill_n(y + (std::size_t(n) * s.out_channels + o) * plane, plane, b[o]);
    for_each_conv2d_tap(s, [&](std::size_t xi, std::size_t wi, std::size_t yi) {
        y[yi] += x[xi] * w[wi];
    });
}

// dx = dL/dx: every x element receives dy of each output it entered, times its weight.
template <typename T>
void conv2d_backward_data(const Conv2dShape& s, const T* dy, const T* w, T* dx) {
    std::fill_n(dx, conv2d_input_size(s), T(0));
    for_each_conv2d_tap(s, [&](std::size_t xi, std::size_t wi, std::size_t yi) {
        dx[xi] += w[wi] * dy[yi];
    });
}

// dw = dL/dw and db = dL/db (db[o] sums dy over the batch and all positions).
template <typename T>
void conv2d_backward_weights(const Conv2dShape& s, const T* x, const T* dy, T* dw, T* db) {
    std::fill_n(dw, conv2d_weight_size(s), T(0));
    for_each_conv2d_tap(s, [&](std::size_t xi, std::size_t wi, std::size_t yi) {
        dw[wi] += x[xi] * dy[yi];
    });
    const std::size_t plane = std::size_t(s.out_h()) * s.out_w();
    std::fill_n(db, s.out_channels, T(0));
    for (int n = 0; n < s.batch; ++n)
        for (int o = 0; o < s.out_channels; ++o) {
            const T* dy_plane = dy + (std::size_t(n) * s.out_channels + o) * plane;
            for (std::size_t p = 0; p < plane; ++p) db[o] += dy_plane[p];
        }
}

// ---------------------------------------------------------------- relu

template <typename T>
void relu_forward(std::size_t n, const T* x, T* y) {
    for (std::size_t i = 0; i < n; ++i) y[i] = x[i] > T(0) ? x[i] : T(0);
}

// dx = dy where the forward output y > 0, else 0.
template <typename T>
void relu_backward(std::size_t n, const T* y, const T* dy, T* dx) {
    for (std::size_t i = 0; i < n; ++i) dx[i] = y[i] > T(0) ? dy[i] : T(0);
}

// ---------------------------------------------------------------- avg_pool2d

// Calls tap(x_index, y_index) for every input element inside the window of
// every output: window [oh * stride, oh * stride + kernel) in each dimension.
// Windows overlap when stride < kernel; input rows and columns past the last
// full window belong to no window.
template <typename Tap>
void for_each_pool2d_tap(const Pool2dShape& s, Tap&& tap) {
    const int out_h = s.out_h(), out_w = s.out_w();
    for (int n = 0; n < s.batch; ++n)
        for (int c = 0; c < s.channels; ++c)
            for (int oh = 0; oh < out_h; ++oh)
                for (int ow = 0; ow < out_w; ++ow) {
                    const std::size_t y_index = offset4(n, c, oh, ow, s.channels, out_h, out_w);
                    for (int kh = 0; kh < s.kernel; ++kh)
                        for (int kw = 0; kw < s.kernel; ++kw)
                            tap(offset4(n, c, oh * s.stride + kh, ow * s.stride + kw, s.channels,
                                        s.in_h, s.in_w),
                                y_index);
                }
}

// y = mean of x over each window.
template <typename T>
void avg_pool2d_forward(const Pool2dShape& s, const T* x, T* y) {
    const std::size_t out = pool2d_output_size(s);
    std::fill_n(y, out, T(0));
    for_each_pool2d_tap(s, [&](std::size_t xi, std::size_t yi) { y[yi] += x[xi]; });
    const T window_area = T(s.kernel * s.kernel);
    for (std::size_t i = 0; i < out; ++i) y[i] /= window_area;
}

// dx: each output spreads dy / window area evenly over its window.
template <typename T>
void avg_pool2d_backward(const Pool2dShape& s, const T* dy, T* dx) {
    std::fill_n(dx, pool2d_input_size(s), T(0));
    const T window_area = T(s.kernel * s.kernel);
    for_each_pool2d_tap(s, [&](std::size_t xi, std::size_t yi) { dx[xi] += dy[yi] / window_area; });
}

// ---------------------------------------------------------------- linear

// Calls tap(x_index, w_index, y_index) for every product of the layer,
// y[n][o] += x[n][i] * w[o][i]; as for conv2d, all three passes share it.
template <typename Tap>
void for_each_linear_tap(const LinearShape& s, Tap&& tap) {
    for (int n = 0; n < s.batch; ++n)
        for (int o = 0; o < s.out_features; ++o)
            for (int i = 0; i < s.in_features; ++i)
                tap(std::size_t(n) * s.in_features + i, std::size_t(o) * s.in_features + i,
                    std::size_t(n) * s.out_features + o);
}

// y = x w^T + b
template <typename T>
void linear_forward(const LinearShape& s, const T* x, const T* w, const T* b, T* y) {
    for (int n = 0; n < s.batch; ++n)
        std::copy_n(b, s.out_features, y + std::size_t(n) * s.out_features);
    for_each_linear_tap(s, [&](std::size_t xi, std::size_t wi, std::size_t yi) {
        y[yi] += x[xi] * w[wi];
    });
}

// dx = dy w
template <typename T>
void linear_backward_data(const LinearShape& s, const T* dy, const T* w, T* dx) {
    std::fill_n(dx, linear_input_size(s), T(0));
    for_each_linear_tap(s, [&](std::size_t xi, std::size_t wi, std::size_t yi) {
        dx[xi] += dy[yi] * w[wi];
    });
}

// dw = dy^T x, db = dy summed over the batch.
template <typename T>
void linear_backward_weights(const LinearShape& s, const T* x, const T* dy, T* dw, T* db) {
    std::fill_n(dw, linear_weight_size(s), T(0));
    for_each_linear_tap(s, [&](std::size_t xi, std::size_t wi, std::size_t yi) {
        dw[wi] += dy[yi] * x[xi];
    });
    std::fill_n(db, s.out_features, T(0));
    for (int n = 0; n < s.batch; ++n)
        for (int o = 0; o < s.out_features; ++o) db[o] += dy[std::size_t(n) * s.out_features + o];
}

// ---------------------------------------------------------------- loss

// Softmax cross-entropy over `batch` rows of `classes` logits; labels are
// class indices stored as T. Returns the loss summed over the rows and the
// number of rows whose arg-max (the first index on ties) equals the label.
// If dlogits is not null it receives grad_scale * d(loss sum)/dlogits.
template <typename T>
Backend::LossResult softmax_cross_entropy(int batch, int classes, const T* logits, const T* labels,
                                          T* dlogits, T grad_scale) {
    Backend::LossResult result;
    for (int n = 0; n < batch; ++n) {
        const T* z = logits + std::size_t(n) * classes;
        const int label = static_cast<int>(labels[n]);
        if (label < 0 || label >= classes)
            throw Error("label " + std::to_string(label) + " of row " + std::to_string(n) +
                        " is not a class index below " + std::to_string(classes));

        // std::max_element returns the first of equal maxima.
        const int predicted = static_cast<int>(std::max_element(z, z + classes) - z);
        if (predicted == label) ++result.correct;

        // log sum_c exp(z_c) = max + log sum_c exp(z_c - max): every exponent
        // is <= 0, so nothing overflows, and the sum is >= 1.
        const T max_logit = z[predicted];
        T sum_exp = 0;
        for (int c = 0; c < classes; ++c) sum_exp += std::exp(z[c] - max_logit);
        const T log_sum_exp = max_logit + std::log(sum_exp);
        result.loss_sum += log_sum_exp - z[label];  // -log softmax(z)[label]

        // d(-log softmax(z)[label]) / dz_c = softmax(z)_c - [c == label]
        if (dlogits != nullptr) {
            T* dz = dlogits + std::size_t(n) * classes;
            for (int c = 0; c < classes; ++c)
                dz[c] = grad_scale * (std::exp(z[c] - log_sum_exp) - T(c == label ? 1 : 0));
        }
    }
    return result;
}

// ---------------------------------------------------------------- optimizer

// param -= lr * grad
template <typename T>
void sgd_update(std::size_t n, T lr, T* param, const T* grad) {
    for (std::size_t i = 0; i < n; ++i) param[i] -= lr * grad[i];
}

}  // namespace dp::reference
