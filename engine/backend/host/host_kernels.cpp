#include "backend/host/host_kernels.h"

#include <algorithm>
#include <cmath>
#include <string>

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

// Calls f(i) for the index i of every element of channel c.
template <typename F>
void for_each_in_channel(const BatchNorm2dShape& s, int c, F&& f) {
    const std::size_t area = std::size_t(s.h) * s.w;
    for (int n = 0; n < s.batch; ++n) {
        const std::size_t plane = (std::size_t(n) * s.channels + c) * area;
        for (std::size_t i = plane; i < plane + area; ++i) f(i);
    }
}

struct Sums {
    double sum = 0, sum_sq = 0;
};
// Sums of d = x - shift and of d^2 over channel c.
Sums channel_sums(const BatchNorm2dShape& s, int c, const float* x, double shift) {
    Sums sums;
    for_each_in_channel(s, c, [&](std::size_t i) {
        const double d = double(x[i]) - shift;
        sums.sum += d;
        sums.sum_sq += d * d;
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
    const std::size_t plane = std::size_t(s.out_h()) * s.out_w();
    parallel_for(std::size_t(s.out_channels), [&](std::size_t o) {
        double sum = 0;
        for (int n = 0; n < s.batch; ++n) {
            const float* dy_plane = dy + (std::size_t(n) * s.out_channels + o) * plane;
            for (std::size_t p = 0; p < plane; ++p) sum += dy_plane[p];
        }
        db[o] = float(sum);
    });
}

void linear_bias_backward(const LinearShape& s, const float* dy, float* db) {
    parallel_for(std::size_t(s.out_features), [&](std::size_t o) {
        double sum = 0;
        for (int n = 0; n < s.batch; ++n) sum += dy[std::size_t(n) * s.out_features + o];
        db[o] = float(sum);
    });
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
    const std::int64_t count = batch_norm2d_count(s);
    parallel_for(std::size_t(s.channels), [&](std::size_t c) {
        const double first_mean = channel_sums(s, int(c), x, 0).sum / double(count);
        const Moments moments =
            moments_from_sums(count, channel_sums(s, int(c), x, first_mean), first_mean);
        mean[c] = float(moments.mean);
        var[c] = float(moments.var);
    });
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
    parallel_for(std::size_t(s.channels), [&](std::size_t c) {
        const double channel_shift = shift ? shift[c] : 0.0;
        const Sums sums = channel_sums(s, int(c), x, channel_shift);
        sum[c] = float(sums.sum);
        sum_sq[c] = float(sums.sum_sq);
    });
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

// dgamma = sum of dy * xhat and dbeta = sum of dy over each channel.
void batch_norm2d_backward_reduce(const BatchNorm2dShape& s, const float* x, const float* dy,
                                  const float* mean, const float* var, float* dgamma,
                                  float* dbeta) {
    parallel_for(std::size_t(s.channels), [&](std::size_t c) {
        const double inv_std = 1 / std::sqrt(double(var[c]) + double(s.eps));
        double dy_xhat = 0, dy_sum = 0;
        for_each_in_channel(s, int(c), [&](std::size_t i) {
            dy_xhat += double(dy[i]) * (double(x[i]) - double(mean[c])) * inv_std;
            dy_sum += double(dy[i]);
        });
        dgamma[c] = float(dy_xhat);
        dbeta[c] = float(dy_sum);
    });
}

// y = xhat * gamma + beta with xhat = (x - mean) * inv_std, where mean and
// var depend on x: dL/dx = gamma * inv_std * (dy - mean(dy) - xhat * mean(dy * xhat)),
// the means over the channel's `count` elements: dbeta / count and dgamma / count.
void batch_norm2d_backward_elementwise(const BatchNorm2dShape& s, std::int64_t count,
                                       const float* x, const float* dy, const float* gamma,
                                       const float* mean, const float* var, const float* dgamma,
                                       const float* dbeta, float* dx) {
    parallel_for(std::size_t(s.channels), [&](std::size_t c) {
        const float inv_std = 1.0f / std::sqrt(var[c] + s.eps);
        const float mean_dy = dbeta[c] / float(count), mean_dy_xhat = dgamma[c] / float(count);
        for_each_in_channel(s, int(c), [&](std::size_t i) {
            const float xhat = (x[i] - mean[c]) * inv_std;
            dx[i] = gamma[c] * inv_std * (dy[i] - mean_dy - xhat * mean_dy_xhat);
        });
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
