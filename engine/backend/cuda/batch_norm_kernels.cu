// Batch normalization: per-channel reductions spread over many blocks
// (channel_reduction.cuh), accumulating in double as host_kernels.cpp's
// batch_norm2d functions do, and elementwise kernels computing in float as
// they do.
#include <string>

#include "backend/cuda/channel_reduction.cuh"
#include "backend/cuda/kernel_launch.cuh"
#include "core/error.h"

namespace dp::cuda {
namespace {

struct ChannelLayout {
    int channels;
    std::size_t area;   // h * w
    std::size_t count;  // batch * area: the elements of a channel
};

ChannelLayout layout(const BatchNorm2dShape& s) {
    const std::size_t area = std::size_t(s.h) * s.w;
    return {s.channels, area, std::size_t(s.batch) * area};
}

ChannelReductionPlan reduction_plan(const Launch& launch, const BatchNorm2dShape& s) {
    return device_reduction_plan(launch, s.batch, s.channels, std::size_t(s.h) * s.w);
}

struct DeviceSums {
    double sum, sum_sq;
};

// Sums of d = x - shift and d^2: one pass, in double. The shift keeps
// E[d^2] - E[d]^2 from cancelling: the caller's, zero, or (for the
// training statistics) the channel's first element, which every block reads
// alike, so the sums stay independent of the slicing but for its order.
struct DeviationTerms {
    const float* x;
    const float* shifts;  // per channel; null: see first_element_shift
    bool first_element_shift;
    std::size_t area;
    __device__ double shift(int c) const {
        if (first_element_shift) return double(x[std::size_t(c) * area]);
        return shifts ? double(shifts[c]) : 0.0;
    }
    __device__ auto of_channel(int c) const {
        const double shift_c = shift(c);
        const float* values = x;
        return [shift_c, values](std::size_t i) {
            const double d = double(values[i]) - shift_c;
            return ChannelPartial{d, d * d};
        };
    }
};

struct RunningUpdate {
    double momentum, unbias;  // unbias = count / (count - 1)
};

// host_kernels.cpp's moments_from_sums and update_running_stats for channel c.
__device__ void store_moments(int c, double count, DeviceSums sums, double shift,
                              RunningUpdate update, float* mean, float* var, float* running_mean,
                              float* running_var) {
    const double mean_d = sums.sum / count;
    mean[c] = float(shift + mean_d);
    var[c] = float(fmax(0.0, sums.sum_sq / count - mean_d * mean_d));
    const double m = update.momentum;
    running_mean[c] = float((1 - m) * running_mean[c] + m * mean[c]);
    running_var[c] = float((1 - m) * running_var[c] + m * var[c] * update.unbias);
}

struct StoreTrainingStats {
    DeviationTerms terms;
    double count;
    RunningUpdate update;
    float *mean, *var, *running_mean, *running_var;
    __device__ void operator()(int c, ChannelPartial sums) const {
        store_moments(c, count, {sums.first, sums.second}, terms.shift(c), update, mean, var,
                      running_mean, running_var);
    }
};

struct StoreSums {
    float *sum, *sum_sq;
    __device__ void operator()(int c, ChannelPartial sums) const {
        sum[c] = float(sums.first);
        sum_sq[c] = float(sums.second);
    }
};

// dgamma = inv_std * sum of dy * (x - mean), dbeta = sum of dy, as the host's.
struct BackwardTerms {
    const float *x, *dy, *mean;
    __device__ auto of_channel(int c) const {
        const double mean_c = double(mean[c]);
        const float *xs = x, *dys = dy;
        return [mean_c, xs, dys](std::size_t i) {
            const double dy_i = double(dys[i]);
            return ChannelPartial{dy_i * (double(xs[i]) - mean_c), dy_i};
        };
    }
};

struct StoreBackwardSums {
    const float* var;
    float eps;
    float *dgamma, *dbeta;
    __device__ void operator()(int c, ChannelPartial sums) const {
        const double inv_std = 1 / sqrt(double(var[c]) + double(eps));
        dgamma[c] = float(sums.first * inv_std);
        dbeta[c] = float(sums.second);
    }
};

__global__ void normalize_kernel(std::size_t n, ChannelLayout l, const float* x,
                                 const float* gamma, const float* beta, const float* mean,
                                 const float* var, float eps, float* y) {
    grid_stride(n, [&](std::size_t i) {
        const int c = int(i / l.area % l.channels);
        const float inv_std = 1.0f / sqrtf(var[c] + eps);
        y[i] = gamma[c] * (x[i] - mean[c]) * inv_std + beta[c];
    });
}

// One thread per channel; shift may alias running_mean (read before written).
__global__ void stats_from_sums_kernel(int channels, double count, RunningUpdate update,
                                       const float* sum, const float* sum_sq, const float* shift,
                                       float* mean, float* var, float* running_mean,
                                       float* running_var) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= channels) return;
    const double shift_c = shift ? double(shift[c]) : 0.0;
    store_moments(c, count, {double(sum[c]), double(sum_sq[c])}, shift_c, update, mean, var,
                  running_mean, running_var);
}

__global__ void backward_elementwise_kernel(std::size_t n, ChannelLayout l, float count,
                                            float eps, const float* x, const float* dy,
                                            const float* gamma, const float* mean,
                                            const float* var, const float* dgamma,
                                            const float* dbeta, float* dx) {
    grid_stride(n, [&](std::size_t i) {
        const int c = int(i / l.area % l.channels);
        const float inv_std = 1.0f / sqrtf(var[c] + eps);
        const float mean_dy = dbeta[c] / count, mean_dy_xhat = dgamma[c] / count;
        const float xhat = (x[i] - mean[c]) * inv_std;
        dx[i] = gamma[c] * inv_std * (dy[i] - mean_dy - xhat * mean_dy_xhat);
    });
}

void check_count(std::int64_t count) {
    if (count < 2)
        throw Error("batch norm needs more than one value per channel, got " +
                    std::to_string(count));
}

RunningUpdate running_update(const BatchNorm2dShape& s, std::int64_t count) {
    return {double(s.momentum), double(count) / double(count - 1)};
}

}  // namespace

void batch_norm2d_training_stats(const Launch& launch, const BatchNorm2dShape& s, const float* x,
                                 float* mean, float* var, float* running_mean,
                                 float* running_var) {
    const std::int64_t count = s.count_per_channel();
    check_count(count);
    const DeviationTerms terms{x, nullptr, true, std::size_t(s.h) * s.w};
    reduce_channels(launch, reduction_plan(launch, s), terms,
                    StoreTrainingStats{terms, double(count), running_update(s, count), mean, var,
                                       running_mean, running_var},
                    "batch_norm2d training statistics");
}

void batch_norm2d_normalize(const Launch& launch, const BatchNorm2dShape& s, const float* x,
                            const float* gamma, const float* beta, const float* mean,
                            const float* var, float* y) {
    const ChannelLayout l = layout(s);
    const std::size_t n = l.count * s.channels;
    if (!n) return;
    normalize_kernel<<<blocks_for(n), kThreads, 0, launch.stream>>>(n, l, x, gamma, beta, mean,
                                                                   var, s.eps, y);
    DP_CHECK_LAUNCH(launch, "batch_norm2d normalize_kernel");
}

void batch_norm2d_sums(const Launch& launch, const BatchNorm2dShape& s, const float* x,
                       const float* shift, float* sum, float* sum_sq) {
    if (!s.channels) return;
    reduce_channels(launch, reduction_plan(launch, s),
                    DeviationTerms{x, shift, false, std::size_t(s.h) * s.w},
                    StoreSums{sum, sum_sq}, "batch_norm2d sums");
}

void batch_norm2d_stats_from_sums(const Launch& launch, const BatchNorm2dShape& s,
                                  std::int64_t count, const float* sum, const float* sum_sq,
                                  const float* shift, float* mean, float* var,
                                  float* running_mean, float* running_var) {
    check_count(count);
    if (!s.channels) return;
    stats_from_sums_kernel<<<(s.channels + kThreads - 1) / kThreads, kThreads, 0, launch.stream>>>(
        s.channels, double(count), running_update(s, count), sum, sum_sq, shift, mean, var,
        running_mean, running_var);
    DP_CHECK_LAUNCH(launch, "batch_norm2d stats_from_sums_kernel");
}

void batch_norm2d_backward_reduce(const Launch& launch, const BatchNorm2dShape& s, const float* x,
                                  const float* dy, const float* mean, const float* var,
                                  float* dgamma, float* dbeta) {
    if (!s.channels) return;
    reduce_channels(launch, reduction_plan(launch, s), BackwardTerms{x, dy, mean},
                    StoreBackwardSums{var, s.eps, dgamma, dbeta},
                    "batch_norm2d backward sums");
}

void batch_norm2d_backward_elementwise(const Launch& launch, const BatchNorm2dShape& s,
                                       std::int64_t count, const float* x, const float* dy,
                                       const float* gamma, const float* mean, const float* var,
                                       const float* dgamma, const float* dbeta, float* dx) {
    const ChannelLayout l = layout(s);
    const std::size_t n = l.count * s.channels;
    if (!n) return;
    backward_elementwise_kernel<<<blocks_for(n), kThreads, 0, launch.stream>>>(
        n, l, float(count), s.eps, x, dy, gamma, mean, var, dgamma, dbeta, dx);
    DP_CHECK_LAUNCH(launch, "batch_norm2d backward_elementwise_kernel");
}

}  // namespace dp::cuda
