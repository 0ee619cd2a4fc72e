// Batch normalization: per-channel reductions, one block per channel,
// accumulating in double as host_kernels.cpp's batch_norm2d functions do, and
// elementwise kernels computing in float as they do.
#include <string>

#include "backend/cuda/kernel_launch.cuh"
#include "core/error.h"

namespace dp::cuda {
namespace {

struct ChannelLayout {
    int channels;
    std::size_t area;   // h * w
    std::size_t count;  // batch * area: the elements of a channel
    __device__ std::size_t index(int c, std::size_t k) const {
        return (k / area * channels + c) * area + k % area;
    }
};

ChannelLayout layout(const BatchNorm2dShape& s) {
    const std::size_t area = std::size_t(s.h) * s.w;
    return {s.channels, area, std::size_t(s.batch) * area};
}

struct DeviceSums {
    double sum, sum_sq;
};
// Sums of d = x - shift and d^2 over channel c, on every thread of the block.
__device__ DeviceSums channel_sums(const ChannelLayout& l, int c, const float* x, double shift) {
    double sum = 0, sum_sq = 0;
    for (std::size_t k = threadIdx.x; k < l.count; k += blockDim.x) {
        const double d = double(x[l.index(c, k)]) - shift;
        sum += d;
        sum_sq += d * d;
    }
    return {block_sum(sum), block_sum(sum_sq)};
}

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

// Two passes, the second shifted by the first's mean.
__global__ void training_stats_kernel(ChannelLayout l, RunningUpdate update, const float* x,
                                      float* mean, float* var, float* running_mean,
                                      float* running_var) {
    const int c = blockIdx.x;
    const double count = double(l.count);
    const double first_mean = channel_sums(l, c, x, 0).sum / count;
    const DeviceSums sums = channel_sums(l, c, x, first_mean);
    if (threadIdx.x == 0)
        store_moments(c, count, sums, first_mean, update, mean, var, running_mean, running_var);
}

__global__ void normalize_kernel(std::size_t n, ChannelLayout l, const float* x,
                                 const float* gamma, const float* beta, const float* mean,
                                 const float* var, float eps, float* y) {
    grid_stride(n, [&](std::size_t i) {
        const int c = int(i / l.area % l.channels);
        const float inv_std = 1.0f / sqrtf(var[c] + eps);
        y[i] = gamma[c] * (x[i] - mean[c]) * inv_std + beta[c];
    });
}

__global__ void sums_kernel(ChannelLayout l, const float* x, const float* shift, float* sum,
                            float* sum_sq) {
    const int c = blockIdx.x;
    const DeviceSums sums = channel_sums(l, c, x, shift ? double(shift[c]) : 0.0);
    if (threadIdx.x == 0) {
        sum[c] = float(sums.sum);
        sum_sq[c] = float(sums.sum_sq);
    }
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

__global__ void backward_reduce_kernel(ChannelLayout l, float eps, const float* x,
                                       const float* dy, const float* mean, const float* var,
                                       float* dgamma, float* dbeta) {
    const int c = blockIdx.x;
    const double inv_std = 1 / sqrt(double(var[c]) + double(eps));
    double dy_xhat = 0, dy_sum = 0;
    for (std::size_t k = threadIdx.x; k < l.count; k += blockDim.x) {
        const std::size_t i = l.index(c, k);
        dy_xhat += double(dy[i]) * (double(x[i]) - double(mean[c])) * inv_std;
        dy_sum += double(dy[i]);
    }
    dy_xhat = block_sum(dy_xhat);
    dy_sum = block_sum(dy_sum);
    if (threadIdx.x == 0) {
        dgamma[c] = float(dy_xhat);
        dbeta[c] = float(dy_sum);
    }
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
    const ChannelLayout l = layout(s);
    check_count(std::int64_t(l.count));
    training_stats_kernel<<<s.channels, kThreads, 0, launch.stream>>>(
        l, running_update(s, std::int64_t(l.count)), x, mean, var, running_mean, running_var);
    DP_CHECK_LAUNCH(launch, "batch_norm2d training_stats_kernel");
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
    sums_kernel<<<s.channels, kThreads, 0, launch.stream>>>(layout(s), x, shift, sum, sum_sq);
    DP_CHECK_LAUNCH(launch, "batch_norm2d sums_kernel");
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
    backward_reduce_kernel<<<s.channels, kThreads, 0, launch.stream>>>(layout(s), s.eps, x, dy,
                                                                      mean, var, dgamma, dbeta);
    DP_CHECK_LAUNCH(launch, "batch_norm2d backward_reduce_kernel");
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
