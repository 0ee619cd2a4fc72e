#include "backend/host/host_kernels.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <omp.h>

#include "backend/host/vector_clones.h"
#include "core/error.h"

namespace dp::host {
namespace {

// Runs body(i) for every i in [0, n) on the OpenMP threads: one channel,
// unit or output per call.
template <typename Body>
void parallel_for(std::size_t n, Body&& body) {
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) body(i);
}

// Batch normalization's loops and the convolution bias gradient visit a
// channel plane by plane: each of its N planes is H * W contiguous floats.
//
// plane_sums: K sums over i in [0, area) of values that at(i) gives 16 at
// a time (a vector of 16 floats for elements i to i + 15) and at_one(i) one
// at a time (the last area % 16). Each sum runs in 16 float lanes held in
// registers, each run of 64 vectors folded pairwise (a fixed tree) and added
// to a double. The order is fixed: the same bits on every run and thread
// count, and no float sum longer than 64 + 4 terms.
constexpr std::size_t kLanes = 16, kVectorsPerRun = 64;
using Lanes = float __attribute__((vector_size(kLanes * sizeof(float))));
// GCC and clang warn that passing a 64-byte vector by value differs between
// AVX-512 and older targets: these helpers are always inlined, never called
// across an ABI boundary.
#pragma GCC diagnostic ignored "-Wpsabi"

[[gnu::always_inline]] inline Lanes load_lanes(const float* p) {
    Lanes v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

[[gnu::always_inline]] inline double fold_lanes(const Lanes& v) {
    float t[kLanes];
    std::memcpy(t, &v, sizeof t);
    for (std::size_t width = kLanes / 2; width > 0; width /= 2)
        for (std::size_t j = 0; j < width; ++j) t[j] += t[j + width];
    return t[0];
}

template <std::size_t K, typename At, typename AtOne>
[[gnu::always_inline]] inline std::array<double, K> plane_sums(std::size_t area, At&& at,
                                                               AtOne&& at_one) {
    std::array<double, K> sums{};
    const std::size_t vectors_end = area - area % kLanes;
    std::size_t i = 0;
    while (i < vectors_end) {
        std::array<Lanes, K> lanes{};
        const std::size_t end = std::min(vectors_end, i + kLanes * kVectorsPerRun);
        for (; i < end; i += kLanes) {
            const std::array<Lanes, K> values = at(i);
            for (std::size_t k = 0; k < K; ++k) lanes[k] += values[k];
        }
        for (std::size_t k = 0; k < K; ++k) sums[k] += fold_lanes(lanes[k]);
    }
    for (; i < area; ++i) {
        const std::array<float, K> values = at_one(i);
        for (std::size_t k = 0; k < K; ++k) sums[k] += values[k];
    }
    return sums;
}

// The loops over one plane (H * W contiguous floats), each compiled for
// AVX-512, AVX2 and baseline x86-64 (vector_clones.h).
DP_VECTOR_CLONES double plane_sum(const float* x, std::size_t area) {
    return plane_sums<1>(
        area, [&](std::size_t i) { return std::array<Lanes, 1>{load_lanes(x + i)}; },
        [&](std::size_t i) { return std::array<float, 1>{x[i]}; })[0];
}

// {sum of d, sum of d^2} for d = x - shift.
DP_VECTOR_CLONES std::array<double, 2> plane_deviation_sums(const float* x, std::size_t area,
                                                            float shift) {
    const auto deviations = [&](const auto& d) {
        return std::array<std::remove_cvref_t<decltype(d)>, 2>{d, d * d};
    };
    return plane_sums<2>(
        area, [&](std::size_t i) { return deviations(load_lanes(x + i) - shift); },
        [&](std::size_t i) { return deviations(x[i] - shift); });
}

// {sum of dy * (x - mean), sum of dy}.
DP_VECTOR_CLONES std::array<double, 2> plane_gradient_sums(const float* x, const float* dy,
                                                           std::size_t area, float mean) {
    const auto terms = [&](const auto& xs, const auto& dys) {
        return std::array<std::remove_cvref_t<decltype(xs)>, 2>{dys * (xs - mean), dys};
    };
    return plane_sums<2>(
        area, [&](std::size_t i) { return terms(load_lanes(x + i), load_lanes(dy + i)); },
        [&](std::size_t i) { return terms(x[i], dy[i]); });
}

// y = (x - mean) * scale + shift
DP_VECTOR_CLONES void normalize_plane(const float* x, float* y,
                                      std::size_t area, float mean, float scale, float shift) {
    for (std::size_t i = 0; i < area; ++i) y[i] = (x[i] - mean) * scale + shift;
}

// dx = a * dy + b * (x - mean) + k
DP_VECTOR_CLONES void backward_plane(const float* x, const float* dy,
                                     float* dx, std::size_t area, float mean, float a,
                                     float b, float k) {
    for (std::size_t i = 0; i < area; ++i) dx[i] = a * dy[i] + b * (x[i] - mean) + k;
}

// Calls body(c, plane, area) for every plane of an N x C x H x W tensor:
// `plane` the index of its first element, `area` = H * W. The threads split
// the channels; each walks its channels' planes batch by batch, in memory
// order, so channel c's planes come in batch order whatever the thread
// count. (A channel at a time jumped C * H * W floats between planes of
// 3 KB, and its loops ran 1.5-2x slower for it.)
template <typename Body>
void for_each_plane(int batch, int channels, std::size_t area, Body&& body) {
#pragma omp parallel
    {
        const int threads = omp_get_num_threads(), thread = omp_get_thread_num();
        const int begin = int(std::int64_t(channels) * thread / threads);
        const int end = int(std::int64_t(channels) * (thread + 1) / threads);
        for (int n = 0; n < batch; ++n)
            for (int c = begin; c < end; ++c)
                body(c, (std::size_t(n) * channels + std::size_t(c)) * area, area);
    }
}
template <typename Body>
void for_each_plane(const BatchNorm2dShape& s, Body&& body) {
    for_each_plane(s.batch, s.channels, std::size_t(s.h) * s.w, body);
}

// n values of T, zeroed, for one call's per-channel results: a buffer per
// thread and type, grown on first use and then reused, so that the step
// loop allocates nothing after its first step (test_step_allocations). No
// caller holds two spans of one type at once.
template <typename T>
std::span<T> per_channel(std::size_t n) {
    thread_local std::vector<T> buffer;
    if (buffer.size() < n) buffer.resize(n);
    std::fill_n(buffer.begin(), n, T{});
    return {buffer.data(), n};
}

struct Sums {
    double sum = 0, sum_sq = 0;
};
// Per channel, the sums of d = x - shift[c] and of d^2.
std::span<Sums> channel_sums(const BatchNorm2dShape& s, const float* x,
                             std::span<const float> shift) {
    const std::span<Sums> sums = per_channel<Sums>(std::size_t(s.channels));
    for_each_plane(s, [&](int c, std::size_t plane, std::size_t area) {
        const auto [sum, sum_sq] = plane_deviation_sums(x + plane, area, shift[std::size_t(c)]);
        sums[std::size_t(c)].sum += sum;
        sums[std::size_t(c)].sum_sq += sum_sq;
    });
    return sums;
}

struct Moments {
    double mean = 0, var = 0;  // var biased: the mean square deviation
};
// The mean and variance of `count` values from the sums of their
// deviations from `shift`; the closer the shift to the mean, the less
// E[d^2] - E[d]^2 cancels.
Moments moments_from_sums(std::int64_t count, const Sums& sums, double shift) {
    const double mean_d = sums.sum / double(count);
    return {shift + mean_d, std::max(0.0, sums.sum_sq / double(count) - mean_d * mean_d)};
}

// Unit `unit` of dropout: its `unit_size` elements share one mask value.
void dropout_unit(const DropoutDraw& draw, std::size_t unit, std::size_t unit_size,
                  const float* x, float* y, float* mask) {
    const float value = draw.mask(unit);
    for (std::size_t i = unit * unit_size; i < (unit + 1) * unit_size; ++i) {
        mask[i] = value;
        y[i] = x[i] * value;
    }
}

// The class index of row n, checked.
int row_label(const float* labels, int n, int classes) {
    const int label = static_cast<int>(labels[n]);
    if (label < 0 || label >= classes)
        throw Error("label " + std::to_string(label) + " of row " + std::to_string(n) +
                    " is not a class index below " + std::to_string(classes));
    return label;
}

// The index of the largest of `classes` values, the first of equal maxima.
int first_arg_max(const float* row, int classes) {
    return static_cast<int>(std::max_element(row, row + classes) - row);
}

// log sum_c exp(z_c) = max + log sum_c exp(z_c - max): every exponent is
// <= 0, so nothing overflows, and the sum is >= 1.
float log_sum_exp(const float* z, int classes) {
    const float max_value = z[first_arg_max(z, classes)];
    float sum_exp = 0;
    for (int c = 0; c < classes; ++c) sum_exp += std::exp(z[c] - max_value);
    return max_value + std::log(sum_exp);
}

}  // namespace

void check_pool2d_shape(const Pool2dShape& s) {
    if (s.pad < 0 || 2 * s.pad > s.kernel)
        throw Error("pool2d padding " + std::to_string(s.pad) + " is not within half the kernel " +
                    std::to_string(s.kernel));
}

void conv2d_bias_backward(const Conv2dShape& s, const float* dy, float* db) {
    const std::span<double> sums = per_channel<double>(std::size_t(s.out_channels));
    for_each_plane(s.batch, s.out_channels, std::size_t(s.out_h()) * s.out_w(),
                   [&](int o, std::size_t plane, std::size_t area) {
                       sums[std::size_t(o)] += plane_sum(dy + plane, area);
                   });
    for (std::size_t o = 0; o < sums.size(); ++o) db[o] = float(sums[o]);
}

// Row by row, each output's sum in row order: the loop over outputs vectorizes.
void linear_bias_backward(const LinearShape& s, const float* dy, float* db) {
    const std::span<double> sums = per_channel<double>(std::size_t(s.out_features));
    for (int n = 0; n < s.batch; ++n) {
        const float* row = dy + std::size_t(n) * s.out_features;
        for (std::size_t o = 0; o < sums.size(); ++o) sums[o] += row[o];
    }
    for (std::size_t o = 0; o < sums.size(); ++o) db[o] = float(sums[o]);
}

DropoutDraw::DropoutDraw(const DropoutConfig& config)
    : key_(mix(mix(config.seed + kGolden) + config.step * kGolden)),
      offset_(config.offset),
      p_(config.p),
      scale_(1.0f / (1.0f - config.p)) {
    if (!(config.p >= 0 && config.p <= 1))
        throw Error("dropout probability " + std::to_string(config.p) + " is not in [0, 1]");
}

void dropout_forward(std::size_t n, const DropoutConfig& config, const float* x, float* y,
                     float* mask) {
    const DropoutDraw draw(config);
    parallel_for(n, [&](std::size_t i) { dropout_unit(draw, i, 1, x, y, mask); });
}

void dropout2d_forward(const NchwShape& s, const DropoutConfig& config, const float* x, float* y,
                       float* mask) {
    const DropoutDraw draw(config);
    const std::size_t area = std::size_t(s.h) * s.w;
    parallel_for(std::size_t(s.batch) * s.channels,
                 [&](std::size_t p) { dropout_unit(draw, p, area, x, y, mask); });
}

void batch_norm2d_statistics(const BatchNorm2dShape& s, const float* x, float* mean, float* var) {
    const std::int64_t count = s.count_per_channel();
    const std::size_t channels = std::size_t(s.channels);
    const std::span<double> sums = per_channel<double>(channels);
    for_each_plane(s, [&](int c, std::size_t plane, std::size_t area) {
        sums[std::size_t(c)] += plane_sum(x + plane, area);
    });
    // The first pass's means as floats: the second pass's shifts are exact.
    const std::span<float> first_mean = per_channel<float>(channels);
    for (std::size_t c = 0; c < channels; ++c) first_mean[c] = float(sums[c] / double(count));
    const std::span<const Sums> deviations = channel_sums(s, x, first_mean);
    for (std::size_t c = 0; c < channels; ++c) {
        const Moments moments = moments_from_sums(count, deviations[c], first_mean[c]);
        mean[c] = float(moments.mean);
        var[c] = float(moments.var);
    }
}

void update_running_stats(const BatchNorm2dShape& s, std::int64_t count, const float* mean,
                          const float* var, float* running_mean, float* running_var) {
    if (count < 2)
        throw Error("batch norm needs more than one value per channel, got " +
                    std::to_string(count));
    const double m = s.momentum, unbias = double(count) / double(count - 1);
    for (int c = 0; c < s.channels; ++c) {
        running_mean[c] = float((1 - m) * running_mean[c] + m * mean[c]);
        running_var[c] = float((1 - m) * running_var[c] + m * var[c] * unbias);
    }
}

void batch_norm2d_sums(const BatchNorm2dShape& s, const float* x, const float* shift, float* sum,
                       float* sum_sq) {
    const std::span<float> shifts = per_channel<float>(std::size_t(s.channels));  // zeros
    if (shift) std::copy_n(shift, s.channels, shifts.begin());
    const std::span<const Sums> sums = channel_sums(s, x, shifts);
    for (std::size_t c = 0; c < sums.size(); ++c) {
        sum[c] = float(sums[c].sum);
        sum_sq[c] = float(sums[c].sum_sq);
    }
}

// C values: a loop is faster than waking the threads. shift may be
// running_mean: each channel reads it before updating it.
void batch_norm2d_stats_from_sums(const BatchNorm2dShape& s, std::int64_t count, const float* sum,
                                  const float* sum_sq, const float* shift, float* mean, float* var,
                                  float* running_mean, float* running_var) {
    for (int c = 0; c < s.channels; ++c) {
        const Moments moments = moments_from_sums(count, {double(sum[c]), double(sum_sq[c])},
                                                  shift ? double(shift[c]) : 0.0);
        mean[c] = float(moments.mean);
        var[c] = float(moments.var);
    }
    update_running_stats(s, count, mean, var, running_mean, running_var);
}

// dgamma = sum of dy * xhat and dbeta = sum of dy over each channel:
// dgamma = inv_std * sum of dy * (x - mean).
void batch_norm2d_backward_reduce(const BatchNorm2dShape& s, const float* x, const float* dy,
                                  const float* mean, const float* var, float* dgamma,
                                  float* dbeta) {
    struct GradientSums {
        double dy_centered = 0, dy = 0;  // sums of dy * (x - mean) and of dy
    };
    const std::span<GradientSums> sums = per_channel<GradientSums>(std::size_t(s.channels));
    for_each_plane(s, [&](int c, std::size_t plane, std::size_t area) {
        const auto [centered, sum] = plane_gradient_sums(x + plane, dy + plane, area, mean[c]);
        sums[std::size_t(c)].dy_centered += centered;
        sums[std::size_t(c)].dy += sum;
    });
    for (std::size_t c = 0; c < sums.size(); ++c) {
        dgamma[c] = float(sums[c].dy_centered / std::sqrt(double(var[c]) + double(s.eps)));
        dbeta[c] = float(sums[c].dy);
    }
}

// y = xhat * gamma + beta with xhat = (x - mean) * inv_std, where mean and
// var depend on x: dL/dx = gamma * inv_std * (dy - mean(dy) - xhat * mean(dy * xhat)),
// the means over the channel's `count` elements: dbeta / count and dgamma / count.
// Per channel that is dx = a * dy + b * (x - mean) + k, its three
// coefficients computed once.
void batch_norm2d_backward_elementwise(const BatchNorm2dShape& s, std::int64_t count,
                                       const float* x, const float* dy, const float* gamma,
                                       const float* mean, const float* var, const float* dgamma,
                                       const float* dbeta, float* dx) {
    struct Coefficients {
        float a, b, k;
    };
    const std::span<Coefficients> coefficients = per_channel<Coefficients>(std::size_t(s.channels));
    for (std::size_t c = 0; c < coefficients.size(); ++c) {
        const float inv_std = 1.0f / std::sqrt(var[c] + s.eps);
        const float mean_dy = dbeta[c] / float(count), mean_dy_xhat = dgamma[c] / float(count);
        const float a = gamma[c] * inv_std;
        coefficients[c] = {a, -a * inv_std * mean_dy_xhat, -a * mean_dy};
    }
    for_each_plane(s, [&](int c, std::size_t plane, std::size_t area) {
        const Coefficients& k = coefficients[std::size_t(c)];
        backward_plane(x + plane, dy + plane, dx + plane, area, mean[c], k.a, k.b, k.k);
    });
}

// y = (x - mean) * (gamma * inv_std) + beta.
void batch_norm2d_normalize(const BatchNorm2dShape& s, const float* x, const float* gamma,
                            const float* beta, const float* mean, const float* var, float* y) {
    const std::span<float> scale = per_channel<float>(std::size_t(s.channels));
    for (std::size_t c = 0; c < scale.size(); ++c) scale[c] = gamma[c] / std::sqrt(var[c] + s.eps);
    for_each_plane(s, [&](int c, std::size_t plane, std::size_t area) {
        normalize_plane(x + plane, y + plane, area, mean[c], scale[std::size_t(c)], beta[c]);
    });
}

// The loss of a row is -log softmax(z)[label] = log sum exp(z) - z[label],
// its gradient softmax(z)_c - [c == label].
Backend::LossResult softmax_cross_entropy(int batch, int classes, const float* logits,
                                          const float* labels, float* dlogits, float grad_scale) {
    Backend::LossResult result;
    for (int n = 0; n < batch; ++n) {
        const float* z = logits + std::size_t(n) * classes;
        const int label = row_label(labels, n, classes);
        if (first_arg_max(z, classes) == label) ++result.correct;

        const float log_z = log_sum_exp(z, classes);
        result.loss_sum += log_z - z[label];

        if (dlogits != nullptr) {
            float* dz = dlogits + std::size_t(n) * classes;
            for (int c = 0; c < classes; ++c)
                dz[c] = grad_scale * (std::exp(z[c] - log_z) - float(c == label ? 1 : 0));
        }
    }
    return result;
}

Backend::LossResult nll_loss(int batch, int classes, const float* log_probs, const float* labels,
                             float* dlog_probs, float grad_scale) {
    Backend::LossResult result;
    for (int n = 0; n < batch; ++n) {
        const float* row = log_probs + std::size_t(n) * classes;
        const int label = row_label(labels, n, classes);
        if (first_arg_max(row, classes) == label) ++result.correct;
        result.loss_sum -= row[label];
        if (dlog_probs != nullptr) {
            float* d = dlog_probs + std::size_t(n) * classes;
            std::fill_n(d, classes, 0.0f);
            d[label] = -grad_scale;
        }
    }
    return result;
}

}  // namespace dp::host
