// Batch normalization: per-channel reductions spread over many blocks
// (channel_reduction.cuh), accumulating in double as host_kernels.cpp's
// batch_norm2d functions do, and elementwise kernels computing in float as
// they do (batch_norm_elements.h), on plane_grid.h's 2-D grids. The ReLU
// after a BatchNorm can be fused into both passes (the `relu` template
// arguments): see Backend::batch_norm2d_relu_forward_training.
#include <string>

#include "backend/cuda/batch_norm_elements.h"
#include "backend/cuda/channel_reduction.cuh"
#include "backend/cuda/kernel_launch.cuh"
#include "backend/cuda/plane_grid.h"
#include "core/error.h"

namespace dp::cuda {
namespace {

PlaneGrid grid_of(const BatchNorm2dShape& s) {
    return plane_grid(s.batch, s.channels, std::size_t(s.h) * s.w);
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

// dgamma = inv_std * sum of dy * (x - mean), dbeta = sum of dy, as the
// host's; with `relu`, of dy masked by the ReLU's output relu_y.
template <bool relu>
struct BackwardTerms {
    const float *x, *dy, *mean, *relu_y;
    __device__ auto of_channel(int c) const {
        const double mean_c = double(mean[c]);
        const float *xs = x, *dys = dy, *ys = relu_y;
        return [mean_c, xs, dys, ys](std::size_t i) {
            const double dy_i =
                double(batch_norm_output_gradient<relu>(dys[i], relu ? ys[i] : 0.f));
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

template <bool relu>
__global__ void normalize_kernel(PlaneGrid g, const float* x, const float* gamma,
                                 const float* beta, const float* mean, const float* var,
                                 float eps, float* y) {
    for_each_plane_element(g, blockIdx.x, blockIdx.y, threadIdx.x, [&](std::size_t i, int c) {
        y[i] = batch_norm_apply<relu>(x[i], gamma[c], beta[c], mean[c],
                                      batch_norm_inverse_std(var[c], eps));
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

template <bool relu>
__global__ void backward_elementwise_kernel(PlaneGrid g, float count, float eps, const float* x,
                                            const float* dy, const float* relu_y,
                                            const float* gamma, const float* mean,
                                            const float* var, const float* dgamma,
                                            const float* dbeta, float* dx) {
    for_each_plane_element(g, blockIdx.x, blockIdx.y, threadIdx.x, [&](std::size_t i, int c) {
        const float dy_i = batch_norm_output_gradient<relu>(dy[i], relu ? relu_y[i] : 0.f);
        dx[i] = batch_norm_input_gradient(x[i], dy_i, gamma[c], mean[c],
                                          batch_norm_inverse_std(var[c], eps), dbeta[c] / count,
                                          dgamma[c] / count);
    });
}

dim3 blocks_of(const PlaneGrid& g) { return dim3(g.blocks_x, g.blocks_y); }

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
                            const float* var, float* y, bool relu) {
    const PlaneGrid g = grid_of(s);
    if (!g.blocks_y) return;
    static_assert(kPlaneGridThreads == kThreads);
    if (relu)
        normalize_kernel<true><<<blocks_of(g), kThreads, 0, launch.stream>>>(g, x, gamma, beta,
                                                                            mean, var, s.eps, y);
    else
        normalize_kernel<false><<<blocks_of(g), kThreads, 0, launch.stream>>>(g, x, gamma, beta,
                                                                             mean, var, s.eps, y);
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
                                  float* dgamma, float* dbeta, const float* relu_y) {
    if (!s.channels) return;
    const StoreBackwardSums store{var, s.eps, dgamma, dbeta};
    if (relu_y)
        reduce_channels(launch, reduction_plan(launch, s),
                        BackwardTerms<true>{x, dy, mean, relu_y}, store,
                        "batch_norm2d backward sums (ReLU fused)");
    else
        reduce_channels(launch, reduction_plan(launch, s),
                        BackwardTerms<false>{x, dy, mean, nullptr}, store,
                        "batch_norm2d backward sums");
}

void batch_norm2d_backward_elementwise(const Launch& launch, const BatchNorm2dShape& s,
                                       std::int64_t count, const float* x, const float* dy,
                                       const float* gamma, const float* mean, const float* var,
                                       const float* dgamma, const float* dbeta, float* dx,
                                       const float* relu_y) {
    const PlaneGrid g = grid_of(s);
    if (!g.blocks_y) return;
    if (relu_y)
        backward_elementwise_kernel<true><<<blocks_of(g), kThreads, 0, launch.stream>>>(
            g, float(count), s.eps, x, dy, relu_y, gamma, mean, var, dgamma, dbeta, dx);
    else
        backward_elementwise_kernel<false><<<blocks_of(g), kThreads, 0, launch.stream>>>(
            g, float(count), s.eps, x, dy, nullptr, gamma, mean, var, dgamma, dbeta, dx);
    DP_CHECK_LAUNCH(launch, "batch_norm2d backward_elementwise_kernel");
}

}  // namespace dp::cuda

namespace dp::cuda {
namespace {

// One thread per channel, either direction of inv_std = 1 / sqrt(var + eps).
template <bool to_variance>
__global__ void convert_channel_spread_kernel(int channels, float eps, const float* from,
                                              float* to) {
    const int c = int(blockIdx.x * blockDim.x + threadIdx.x);
    if (c >= channels) return;
    to[c] = to_variance ? fmaxf(0.f, 1.0f / (from[c] * from[c]) - eps)
                        : batch_norm_inverse_std(from[c], eps);
}

template <bool to_variance>
void convert_channel_spread(const Launch& launch, int channels, float eps, const float* from,
                            float* to) {
    if (channels <= 0) return;
    convert_channel_spread_kernel<to_variance>
        <<<unsigned((channels + kThreads - 1) / kThreads), kThreads, 0, launch.stream>>>(
            channels, eps, from, to);
    DP_CHECK_LAUNCH(launch, "convert_channel_spread_kernel");
}

}  // namespace

void inverse_std_to_variance(const Launch& launch, int channels, float eps, const float* inv_std,
                             float* var) {
    convert_channel_spread<true>(launch, channels, eps, inv_std, var);
}

void variance_to_inverse_std(const Launch& launch, int channels, float eps, const float* var,
                             float* inv_std) {
    convert_channel_spread<false>(launch, channels, eps, var, inv_std);
}

}  // namespace dp::cuda
