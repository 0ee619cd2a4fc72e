#pragma once

// Naive loop implementations of every op of dp::Backend: the reference that
// the fast backends are tested against, written to be checked by reading.
// T is float (ReferenceBackend) or double (the gradient checks of the tests).
// Nothing here is shared with a fast backend (their host loops are
// backend/host/host_kernels.h's), so that a test comparing one with
// ReferenceBackend compares two implementations of each op.
// Layouts are PyTorch's: activations NCHW, conv weights OIHW, linear weights
// [out, in]. Backward ops overwrite their outputs, like the Backend's.

#include "backend/backend.h"
#include "core/error.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace dp::reference {

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

// y = conv(x, w) + b (b null: no bias)
template <typename T>
void conv2d_forward(const Conv2dShape& s, const T* x, const T* w, const T* b, T* y) {
    const std::size_t plane = std::size_t(s.out_h()) * s.out_w();
    for (int n = 0; n < s.batch; ++n)
        for (int o = 0; o < s.out_channels; ++o)
            std::fill_n(y + (std::size_t(n) * s.out_channels + o) * plane, plane, b ? b[o] : T(0));
    for_each_conv2d_tap(s, [&](std::size_t xi, std::size_t wi, std::size_t yi) {
        y[yi] += x[xi] * w[wi];
    });
}

// dx = dL/dx: every x element receives dy of each output it entered, times its weight.
template <typename T>
void conv2d_backward_data(const Conv2dShape& s, const T* dy, const T* w, T* dx) {
    std::fill_n(dx, s.input_size(), T(0));
    for_each_conv2d_tap(s, [&](std::size_t xi, std::size_t wi, std::size_t yi) {
        dx[xi] += w[wi] * dy[yi];
    });
}

// db[o] = dL/db[o], dy summed over the batch and all positions of channel o,
// in double: a bias gradient is a sum of many terms that mostly cancel, so
// float accumulation would make it depend on how the batch was split.
template <typename T>
void conv2d_bias_backward(const Conv2dShape& s, const T* dy, int o, T* db) {
    const std::size_t plane = std::size_t(s.out_h()) * s.out_w();
    double sum = 0;
    for (int n = 0; n < s.batch; ++n) {
        const T* dy_plane = dy + (std::size_t(n) * s.out_channels + o) * plane;
        for (std::size_t p = 0; p < plane; ++p) sum += dy_plane[p];
    }
    db[o] = T(sum);
}

// dw = dL/dw and db = dL/db (db null: not summed).
template <typename T>
void conv2d_backward_weights(const Conv2dShape& s, const T* x, const T* dy, T* dw, T* db) {
    std::fill_n(dw, s.weight_size(), T(0));
    for_each_conv2d_tap(s, [&](std::size_t xi, std::size_t wi, std::size_t yi) {
        dw[wi] += x[xi] * dy[yi];
    });
    if (db)
        for (int o = 0; o < s.out_channels; ++o) conv2d_bias_backward(s, dy, o, db);
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

// ---------------------------------------------------------------- pool2d

// Throws unless the padding is within PyTorch's limit, kernel / 2, so that
// every window holds at least one input element.
inline void check_pool2d_shape(const Pool2dShape& s) {
    if (s.pad < 0 || 2 * s.pad > s.kernel)
        throw Error("pool2d padding " + std::to_string(s.pad) + " is not within half the kernel " +
                    std::to_string(s.kernel));
}

// Calls tap(x_index, y_index) for every input element inside the window of
// every output: window [oh * stride - pad, oh * stride - pad + kernel) in
// each dimension, less the taps in the padding. Windows overlap when
// stride < kernel; input rows and columns past the last full window belong
// to no window. The taps of a window come in row-major order.
template <typename Tap>
void for_each_pool2d_tap(const Pool2dShape& s, Tap&& tap) {
    const int out_h = s.out_h(), out_w = s.out_w();
    for (int n = 0; n < s.batch; ++n)
        for (int c = 0; c < s.channels; ++c)
            for (int oh = 0; oh < out_h; ++oh)
                for (int ow = 0; ow < out_w; ++ow) {
                    const std::size_t y_index = offset4(n, c, oh, ow, s.channels, out_h, out_w);
                    for (int kh = 0; kh < s.kernel; ++kh) {
                        const int ih = oh * s.stride - s.pad + kh;
                        if (ih < 0 || ih >= s.in_h) continue;
                        for (int kw = 0; kw < s.kernel; ++kw) {
                            const int iw = ow * s.stride - s.pad + kw;
                            if (iw < 0 || iw >= s.in_w) continue;
                            tap(offset4(n, c, ih, iw, s.channels, s.in_h, s.in_w), y_index);
                        }
                    }
                }
}

// y = mean of x over each window, the padding counted as zeros.
template <typename T>
void avg_pool2d_forward(const Pool2dShape& s, const T* x, T* y) {
    check_pool2d_shape(s);
    const std::size_t out = s.output_size();
    std::fill_n(y, out, T(0));
    for_each_pool2d_tap(s, [&](std::size_t xi, std::size_t yi) { y[yi] += x[xi]; });
    const T window_area = T(s.kernel * s.kernel);
    for (std::size_t i = 0; i < out; ++i) y[i] /= window_area;
}

// dx: each output spreads dy / window area evenly over its window.
template <typename T>
void avg_pool2d_backward(const Pool2dShape& s, const T* dy, T* dx) {
    check_pool2d_shape(s);
    std::fill_n(dx, s.input_size(), T(0));
    const T window_area = T(s.kernel * s.kernel);
    for_each_pool2d_tap(s, [&](std::size_t xi, std::size_t yi) { dx[xi] += dy[yi] / window_area; });
}

// y = mean of max(x, 0) over each window: relu_forward then avg_pool2d_forward.
template <typename T>
void relu_avg_pool2d_forward(const Pool2dShape& s, const T* x, T* y) {
    check_pool2d_shape(s);
    const std::size_t out = s.output_size();
    std::fill_n(y, out, T(0));
    for_each_pool2d_tap(s, [&](std::size_t xi, std::size_t yi) {
        y[yi] += x[xi] > T(0) ? x[xi] : T(0);
    });
    const T window_area = T(s.kernel * s.kernel);
    for (std::size_t i = 0; i < out; ++i) y[i] /= window_area;
}

// dx = avg_pool2d_backward's dx where x > 0, else 0.
template <typename T>
void relu_avg_pool2d_backward(const Pool2dShape& s, const T* x, const T* dy, T* dx) {
    avg_pool2d_backward(s, dy, dx);
    const std::size_t in = s.input_size();
    for (std::size_t i = 0; i < in; ++i)
        if (!(x[i] > T(0))) dx[i] = T(0);
}

// The workspace of the reference max pooling: for each output, the index of
// the input element that won, as a std::int64_t. Read and written with
// memcpy, so that any buffer of the size will do (a float one included).
inline std::size_t max_pool2d_workspace_size(const Pool2dShape& s) {
    return s.output_size() * sizeof(std::int64_t);
}
inline std::int64_t load_index(const void* workspace, std::size_t i) {
    std::int64_t index;
    std::memcpy(&index, static_cast<const std::byte*>(workspace) + i * sizeof index, sizeof index);
    return index;
}
inline void store_index(void* workspace, std::size_t i, std::int64_t index) {
    std::memcpy(static_cast<std::byte*>(workspace) + i * sizeof index, &index, sizeof index);
}

// y = maximum of x over each window; the workspace receives the index of the
// first maximum (a later tap replaces it only if strictly greater).
template <typename T>
void max_pool2d_forward(const Pool2dShape& s, const T* x, T* y, void* workspace) {
    check_pool2d_shape(s);
    const std::size_t out = s.output_size();
    for (std::size_t i = 0; i < out; ++i) store_index(workspace, i, -1);
    for_each_pool2d_tap(s, [&](std::size_t xi, std::size_t yi) {
        if (load_index(workspace, yi) < 0 || x[xi] > y[yi]) {
            y[yi] = x[xi];
            store_index(workspace, yi, std::int64_t(xi));
        }
    });
}

// dx: each output's dy goes to the input element that won its window.
template <typename T>
void max_pool2d_backward(const Pool2dShape& s, const T* dy, const void* workspace, T* dx) {
    check_pool2d_shape(s);
    std::fill_n(dx, s.input_size(), T(0));
    const std::size_t out = s.output_size();
    for (std::size_t i = 0; i < out; ++i) dx[load_index(workspace, i)] += dy[i];
}

// ---------------------------------------------------------------- global_avg_pool2d

// y[plane] = mean of the H x W values of the plane.
template <typename T>
void global_avg_pool2d_forward(const NchwShape& s, const T* x, T* y) {
    const std::size_t planes = std::size_t(s.batch) * s.channels, area = std::size_t(s.h) * s.w;
    for (std::size_t p = 0; p < planes; ++p) {
        T sum = 0;
        for (std::size_t i = 0; i < area; ++i) sum += x[p * area + i];
        y[p] = sum / T(area);
    }
}

// dx: each plane receives its dy / (H x W) in every element.
template <typename T>
void global_avg_pool2d_backward(const NchwShape& s, const T* dy, T* dx) {
    const std::size_t planes = std::size_t(s.batch) * s.channels, area = std::size_t(s.h) * s.w;
    for (std::size_t p = 0; p < planes; ++p)
        std::fill_n(dx + p * area, area, dy[p] / T(area));
}

// ---------------------------------------------------------------- add, scale

// y = a + b; y may be a or b.
template <typename T>
void add(std::size_t n, const T* a, const T* b, T* y) {
    for (std::size_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
}

// x *= factor
template <typename T>
void scale(std::size_t n, T factor, T* x) {
    for (std::size_t i = 0; i < n; ++i) x[i] *= factor;
}

// ---------------------------------------------------------------- dropout
// The masks that Backend's DropoutConfig defines, spelled out. With
// SplitMix64's output function mix (Steele, Lea and Flood, 2014; Vigna's
// splitmix64.c) and its increment gamma = 2^64 / golden ratio, the calls of
// (seed, step) share the key
//   key = mix(mix(seed + gamma) + step * gamma),
// and unit i of a call draws u = mix(key + (offset + i + 1) * gamma): the
// (offset + i + 1)-th output of a SplitMix64 generator started at the key.
// Its top 24 bits over 2^24 make a uniform number in [0, 1); the unit is
// dropped (mask 0) when that is below p, else kept (mask 1 / (1 - p),
// computed in float). Here the generator walks the units one after
// another; the fast backends draw each unit alone (backend/host/
// host_kernels.h, the CUDA kernels), so the tests compare two derivations.

inline std::uint64_t splitmix64_mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
    z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
    return z ^ (z >> 31);
}

// The mask values of units 0 .. units - 1 of a call, in order.
inline std::vector<float> dropout_unit_masks(const DropoutConfig& config, std::size_t units) {
    if (!(config.p >= 0 && config.p <= 1))
        throw Error("dropout probability " + std::to_string(config.p) + " is not in [0, 1]");
    constexpr std::uint64_t gamma = 0x9e3779b97f4a7c15;
    const std::uint64_t key =
        splitmix64_mix(splitmix64_mix(config.seed + gamma) + config.step * gamma);
    const float keep = 1.0f / (1.0f - config.p);
    std::vector<float> masks(units);
    std::uint64_t state = key + config.offset * gamma;  // the generator before unit 0
    for (float& mask : masks) {
        state += gamma;
        const double u = double(splitmix64_mix(state) >> 40) / double(1 << 24);
        mask = u < double(config.p) ? 0.0f : keep;
    }
    return masks;
}

// Units of one element: y = x * mask. y may be x.
template <typename T>
void dropout_forward(std::size_t n, const DropoutConfig& config, const T* x, T* y, T* mask) {
    const std::vector<float> masks = dropout_unit_masks(config, n);
    for (std::size_t i = 0; i < n; ++i) {
        mask[i] = T(masks[i]);
        y[i] = x[i] * mask[i];
    }
}

// Units of one N x C plane, plane n * C + c drawing unit n * C + c.
template <typename T>
void dropout2d_forward(const NchwShape& s, const DropoutConfig& config, const T* x, T* y,
                       T* mask) {
    const std::vector<float> masks = dropout_unit_masks(config, std::size_t(s.batch) * s.channels);
    for (int n = 0; n < s.batch; ++n)
        for (int c = 0; c < s.channels; ++c)
            for (int h = 0; h < s.h; ++h)
                for (int w = 0; w < s.w; ++w) {
                    const std::size_t i = offset4(n, c, h, w, s.channels, s.h, s.w);
                    mask[i] = T(masks[std::size_t(n) * s.channels + c]);
                    y[i] = x[i] * mask[i];
                }
}

// dx = dy * mask
template <typename T>
void dropout_backward(std::size_t n, const T* mask, const T* dy, T* dx) {
    for (std::size_t i = 0; i < n; ++i) dx[i] = dy[i] * mask[i];
}

// ---------------------------------------------------------------- batch_norm2d
// Per channel c, over its count = N * H * W elements x[n][c][h][w], by the
// definitions: the mean, then the biased variance as the mean squared
// deviation from it. Every sum and every intermediate is a double, rounded
// to T once, when stored.

// Calls f(i) for the index i of every element of channel c.
template <typename F>
void for_each_in_channel(const BatchNorm2dShape& s, int c, F&& f) {
    for (int n = 0; n < s.batch; ++n)
        for (int h = 0; h < s.h; ++h)
            for (int w = 0; w < s.w; ++w) f(offset4(n, c, h, w, s.channels, s.h, s.w));
}

inline void check_batch_norm2d_count(std::int64_t count) {
    if (count < 2)
        throw Error("batch norm needs more than one value per channel, got " +
                    std::to_string(count));
}

// PyTorch's update of channel c's running statistics from a batch's: the
// variance made unbiased, x count / (count - 1).
template <typename T>
void update_running_stats(const BatchNorm2dShape& s, std::int64_t count, int c, double mean,
                          double var, T* running_mean, T* running_var) {
    const double momentum = s.momentum;
    const double unbiased_var = var * double(count) / double(count - 1);
    running_mean[c] = T((1 - momentum) * double(running_mean[c]) + momentum * mean);
    running_var[c] = T((1 - momentum) * double(running_var[c]) + momentum * unbiased_var);
}

template <typename T>
double inverse_std(const BatchNorm2dShape& s, T var) {
    return 1 / std::sqrt(double(var) + double(s.eps));
}

// y = gamma * (x - mean) / sqrt(var + eps) + beta
template <typename T>
void batch_norm2d_forward_given_stats(const BatchNorm2dShape& s, const T* x, const T* gamma,
                                      const T* beta, const T* mean, const T* var, T* y) {
    for (int c = 0; c < s.channels; ++c) {
        const double inv_std = inverse_std(s, var[c]);
        for_each_in_channel(s, c, [&](std::size_t i) {
            y[i] = T(double(gamma[c]) * (double(x[i]) - double(mean[c])) * inv_std +
                     double(beta[c]));
        });
    }
}

// The batch's statistics, y normalized by them, and the running statistics.
template <typename T>
void batch_norm2d_forward_training(const BatchNorm2dShape& s, const T* x, const T* gamma,
                                   const T* beta, T* y, T* mean, T* var, T* running_mean,
                                   T* running_var) {
    const std::int64_t count = s.count_per_channel();
    check_batch_norm2d_count(count);
    for (int c = 0; c < s.channels; ++c) {
        double sum = 0;
        for_each_in_channel(s, c, [&](std::size_t i) { sum += double(x[i]); });
        const double channel_mean = sum / double(count);
        double squared_deviations = 0;
        for_each_in_channel(s, c, [&](std::size_t i) {
            const double deviation = double(x[i]) - channel_mean;
            squared_deviations += deviation * deviation;
        });
        const double channel_var = squared_deviations / double(count);
        mean[c] = T(channel_mean);
        var[c] = T(channel_var);
        const double inv_std = 1 / std::sqrt(channel_var + double(s.eps));
        for_each_in_channel(s, c, [&](std::size_t i) {
            y[i] = T(double(gamma[c]) * (double(x[i]) - channel_mean) * inv_std +
                     double(beta[c]));
        });
        update_running_stats(s, count, c, channel_mean, channel_var, running_mean, running_var);
    }
}

// The backward of the training forward, mean and var being functions of x:
// with xhat = (x - mean) / sqrt(var + eps), dbeta = sum of dy, dgamma = sum
// of dy * xhat, and dx = gamma / sqrt(var + eps) * (dy - dbeta / count -
// xhat * dgamma / count).
template <typename T>
void batch_norm2d_backward(const BatchNorm2dShape& s, const T* x, const T* dy, const T* gamma,
                           const T* mean, const T* var, T* dx, T* dgamma, T* dbeta) {
    const double count = double(s.count_per_channel());
    for (int c = 0; c < s.channels; ++c) {
        const double inv_std = inverse_std(s, var[c]);
        double dy_sum = 0, dy_xhat_sum = 0;
        for_each_in_channel(s, c, [&](std::size_t i) {
            const double xhat = (double(x[i]) - double(mean[c])) * inv_std;
            dy_sum += double(dy[i]);
            dy_xhat_sum += double(dy[i]) * xhat;
        });
        for_each_in_channel(s, c, [&](std::size_t i) {
            const double xhat = (double(x[i]) - double(mean[c])) * inv_std;
            dx[i] = T(double(gamma[c]) * inv_std *
                      (double(dy[i]) - dy_sum / count - xhat * dy_xhat_sum / count));
        });
        dgamma[c] = T(dy_xhat_sum);
        dbeta[c] = T(dy_sum);
    }
}

// sum = sum of (x - shift) and sum_sq = sum of (x - shift)^2 per channel;
// a null shift is 0.
template <typename T>
void batch_norm2d_sums(const BatchNorm2dShape& s, const T* x, const T* shift, T* sum, T* sum_sq) {
    for (int c = 0; c < s.channels; ++c) {
        const double channel_shift = shift != nullptr ? double(shift[c]) : 0.0;
        double deviations = 0, squared_deviations = 0;
        for_each_in_channel(s, c, [&](std::size_t i) {
            const double deviation = double(x[i]) - channel_shift;
            deviations += deviation;
            squared_deviations += deviation * deviation;
        });
        sum[c] = T(deviations);
        sum_sq[c] = T(squared_deviations);
    }
}

// With d = x - shift over `count` values: mean = shift + E[d] and var =
// E[d^2] - E[d]^2 (at least 0). shift may be running_mean: channel c reads
// it before updating it.
template <typename T>
void batch_norm2d_stats_from_sums(const BatchNorm2dShape& s, std::int64_t count, const T* sum,
                                  const T* sum_sq, const T* shift, T* mean, T* var,
                                  T* running_mean, T* running_var) {
    check_batch_norm2d_count(count);
    for (int c = 0; c < s.channels; ++c) {
        const double channel_shift = shift != nullptr ? double(shift[c]) : 0.0;
        const double mean_deviation = double(sum[c]) / double(count);
        const double mean_squared_deviation = double(sum_sq[c]) / double(count);
        const double channel_mean = channel_shift + mean_deviation;
        const double channel_var =
            std::max(0.0, mean_squared_deviation - mean_deviation * mean_deviation);
        mean[c] = T(channel_mean);
        var[c] = T(channel_var);
        update_running_stats(s, count, c, channel_mean, channel_var, running_mean, running_var);
    }
}

// dgamma = sum of dy * (x - mean) / sqrt(var + eps), dbeta = sum of dy.
template <typename T>
void batch_norm2d_backward_reduce(const BatchNorm2dShape& s, const T* x, const T* dy,
                                  const T* mean, const T* var, T* dgamma, T* dbeta) {
    for (int c = 0; c < s.channels; ++c) {
        const double inv_std = inverse_std(s, var[c]);
        double dy_sum = 0, dy_xhat_sum = 0;
        for_each_in_channel(s, c, [&](std::size_t i) {
            dy_sum += double(dy[i]);
            dy_xhat_sum += double(dy[i]) * (double(x[i]) - double(mean[c])) * inv_std;
        });
        dgamma[c] = T(dy_xhat_sum);
        dbeta[c] = T(dy_sum);
    }
}

// dx = gamma / sqrt(var + eps) * (dy - dbeta / count - xhat * dgamma / count)
// with the given (all-reduced) dgamma and dbeta.
template <typename T>
void batch_norm2d_backward_elementwise(const BatchNorm2dShape& s, std::int64_t count, const T* x,
                                       const T* dy, const T* gamma, const T* mean, const T* var,
                                       const T* dgamma, const T* dbeta, T* dx) {
    for (int c = 0; c < s.channels; ++c) {
        const double inv_std = inverse_std(s, var[c]);
        for_each_in_channel(s, c, [&](std::size_t i) {
            const double xhat = (double(x[i]) - double(mean[c])) * inv_std;
            dx[i] = T(double(gamma[c]) * inv_std *
                      (double(dy[i]) - double(dbeta[c]) / double(count) -
                       xhat * double(dgamma[c]) / double(count)));
        });
    }
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
    std::fill_n(dx, s.input_size(), T(0));
    for_each_linear_tap(s, [&](std::size_t xi, std::size_t wi, std::size_t yi) {
        dx[xi] += dy[yi] * w[wi];
    });
}

// db[o] = dy[., o] summed over the batch, in double as conv2d_bias_backward.
template <typename T>
void linear_bias_backward(const LinearShape& s, const T* dy, int o, T* db) {
    double sum = 0;
    for (int n = 0; n < s.batch; ++n) sum += dy[std::size_t(n) * s.out_features + o];
    db[o] = T(sum);
}

// dw = dy^T x, db = dy summed over the batch.
template <typename T>
void linear_backward_weights(const LinearShape& s, const T* x, const T* dy, T* dw, T* db) {
    std::fill_n(dw, s.weight_size(), T(0));
    for_each_linear_tap(s, [&](std::size_t xi, std::size_t wi, std::size_t yi) {
        dw[wi] += dy[yi] * x[xi];
    });
    for (int o = 0; o < s.out_features; ++o) linear_bias_backward(s, dy, o, db);
}

// ---------------------------------------------------------------- loss

// The class index of row n, checked.
template <typename T>
int row_label(const T* labels, int n, int classes) {
    const int label = static_cast<int>(labels[n]);
    if (label < 0 || label >= classes)
        throw Error("label " + std::to_string(label) + " of row " + std::to_string(n) +
                    " is not a class index below " + std::to_string(classes));
    return label;
}

// The index of the largest of `classes` values, the first of equal maxima.
template <typename T>
int first_arg_max(const T* row, int classes) {
    int best = 0;
    for (int c = 1; c < classes; ++c)
        if (row[c] > row[best]) best = c;
    return best;
}

// log sum_c exp(z_c) = max + log sum_c exp(z_c - max): every exponent is
// <= 0, so nothing overflows, and the sum is >= 1.
template <typename T>
T log_sum_exp(const T* z, int classes) {
    const T max_value = z[first_arg_max(z, classes)];
    T sum_exp = 0;
    for (int c = 0; c < classes; ++c) sum_exp += std::exp(z[c] - max_value);
    return max_value + std::log(sum_exp);
}

// Softmax cross-entropy over `batch` rows of `classes` logits; labels are
// class indices stored as T. Returns the loss summed over the rows and the
// number of rows whose arg-max (the first index on ties) equals the label.
// If dlogits is not null it receives grad_scale * d(loss sum)/dlogits. Each
// row in double: its loss -log softmax(z)[label] = log sum exp(z) - z[label],
// the sum shifted by the row's maximum, and its gradient softmax(z)_c -
// [c == label].
template <typename T>
Backend::LossResult softmax_cross_entropy(int batch, int classes, const T* logits, const T* labels,
                                          T* dlogits, T grad_scale) {
    Backend::LossResult result;
    for (int n = 0; n < batch; ++n) {
        const T* z = logits + std::size_t(n) * classes;
        const int label = row_label(labels, n, classes);
        const int predicted = first_arg_max(z, classes);
        if (predicted == label) ++result.correct;

        const double max_z = double(z[predicted]);
        double sum_exp = 0;
        for (int c = 0; c < classes; ++c) sum_exp += std::exp(double(z[c]) - max_z);
        const double log_sum = max_z + std::log(sum_exp);
        result.loss_sum += log_sum - double(z[label]);

        if (dlogits != nullptr) {
            T* dz = dlogits + std::size_t(n) * classes;
            for (int c = 0; c < classes; ++c) {
                const double softmax = std::exp(double(z[c]) - log_sum);
                dz[c] = T(double(grad_scale) * (softmax - (c == label ? 1.0 : 0.0)));
            }
        }
    }
    return result;
}

// y = z - log sum exp(z) per row.
template <typename T>
void log_softmax_forward(int batch, int classes, const T* x, T* y) {
    for (int n = 0; n < batch; ++n) {
        const T* z = x + std::size_t(n) * classes;
        const T log_z = log_sum_exp(z, classes);
        for (int c = 0; c < classes; ++c) y[std::size_t(n) * classes + c] = z[c] - log_z;
    }
}

// dy_c/dz_k = [c == k] - softmax(z)_k, so dx_k = dy_k - exp(y_k) * sum_c dy_c.
template <typename T>
void log_softmax_backward(int batch, int classes, const T* y, const T* dy, T* dx) {
    for (int n = 0; n < batch; ++n) {
        const std::size_t row = std::size_t(n) * classes;
        T dy_sum = 0;
        for (int c = 0; c < classes; ++c) dy_sum += dy[row + c];
        for (int c = 0; c < classes; ++c)
            dx[row + c] = dy[row + c] - std::exp(y[row + c]) * dy_sum;
    }
}

// Negative log-likelihood of rows of log-probabilities: the contract of
// softmax_cross_entropy with -log_probs[label] as each row's loss, whose
// gradient is -1 at the label and 0 elsewhere.
template <typename T>
Backend::LossResult nll_loss(int batch, int classes, const T* log_probs, const T* labels,
                             T* dlog_probs, T grad_scale) {
    Backend::LossResult result;
    for (int n = 0; n < batch; ++n) {
        const T* row = log_probs + std::size_t(n) * classes;
        const int label = row_label(labels, n, classes);
        if (first_arg_max(row, classes) == label) ++result.correct;
        result.loss_sum += -double(row[label]);
        if (dlog_probs != nullptr)
            for (int c = 0; c < classes; ++c)
                dlog_probs[std::size_t(n) * classes + c] = c == label ? -grad_scale : T(0);
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
