#pragma once

// The backend's own CUDA kernels, one launcher each. A launcher enqueues on
// `launch.stream`, checks the launch (a dp::Error naming the kernel and the
// device) and does nothing for an empty tensor, since a grid of zero blocks is
// an error. Semantics are those of the same-named ops in
// backend/reference/reference_ops.h; the comments say only what differs.

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "backend/backend.h"
#include "backend/loss_totals.h"
#include "backend/cuda/channel_reduction_plan.h"

namespace dp::cuda {

struct Launch {
    cudaStream_t stream = nullptr;
    int device = 0;
    // The per-channel reductions' partials (kReductionPartialsCapacity of
    // them): the backend's, since replicas sharing a GPU run concurrently.
    ChannelPartial* reduction_partials = nullptr;
};

// ---- elementwise (elementwise_kernels.cu)
void fill(const Launch& launch, std::size_t n, float value, float* y);
void relu_forward(const Launch& launch, std::size_t n, const float* x, float* y);
void relu_backward(const Launch& launch, std::size_t n, const float* y, const float* dy, float* dx);
void add(const Launch& launch, std::size_t n, const float* a, const float* b, float* y);
void multiply(const Launch& launch, std::size_t n, const float* a, const float* b, float* y);
void scale(const Launch& launch, std::size_t n, float factor, float* x);
// param -= lr * grad
void sgd_update(const Launch& launch, std::size_t n, float lr, float* param, const float* grad);
// y[n][c][p] += bias[c] over `batch` x `channels` planes of `plane` elements
// (plane 1: a linear layer's [batch, channels] output).
void add_channel_bias(const Launch& launch, int batch, int channels, std::size_t plane,
                      const float* bias, float* y);
// sums[c] = sum of dy[n][c][p] over n and p: the bias gradient, summed in
// double over channel_reduction_plan.h's slices. Written (zeros) for batch 0 too.
void channel_sums(const Launch& launch, int batch, int channels, std::size_t plane,
                  const float* dy, float* sums);
// bf16 precision's copies: x rounded to bfloat16 (to nearest even), stored
// as raw 16-bit words, and such words widened back to float.
void round_to_bf16(const Launch& launch, std::size_t n, const float* x, std::uint16_t* y);
void widen_bf16(const Launch& launch, std::size_t n, const std::uint16_t* x, float* y);
// Dropout with units of `unit_size` elements (1: dropout, a plane:
// dropout2d), masks bit-identical to host::DropoutDraw's. config.p is
// checked by the caller.
void dropout_forward(const Launch& launch, std::size_t n, std::size_t unit_size,
                     const DropoutConfig& config, const float* x, float* y, float* mask);

// ---- pooling (pooling_kernels.cu). The max-pool workspace holds, per
// output, the int32 index of the input element that won. The backward passes
// gather over the windows of each input element in output order, so they are
// deterministic and sum in the reference's order.
std::size_t max_pool2d_workspace_bytes(const Pool2dShape& s);
void avg_pool2d_forward(const Launch& launch, const Pool2dShape& s, const float* x, float* y);
void avg_pool2d_backward(const Launch& launch, const Pool2dShape& s, const float* dy, float* dx);
void relu_avg_pool2d_forward(const Launch& launch, const Pool2dShape& s, const float* x, float* y);
void relu_avg_pool2d_backward(const Launch& launch, const Pool2dShape& s, const float* x,
                              const float* dy, float* dx);
void max_pool2d_forward(const Launch& launch, const Pool2dShape& s, const float* x, float* y,
                        std::int32_t* winners);
void max_pool2d_backward(const Launch& launch, const Pool2dShape& s, const float* dy,
                         const std::int32_t* winners, float* dx);
void global_avg_pool2d_forward(const Launch& launch, const NchwShape& s, const float* x, float* y);
void global_avg_pool2d_backward(const Launch& launch, const NchwShape& s, const float* dy,
                                float* dx);

// ---- batch normalization (batch_norm_kernels.cu): the reductions spread
// each channel over many blocks (channel_reduction_plan.h) and accumulate in
// double like the reference; the statistics in one pass, shifted by the
// channel's first element.
void batch_norm2d_training_stats(const Launch& launch, const BatchNorm2dShape& s, const float* x,
                                 float* mean, float* var, float* running_mean, float* running_var);
// With `relu`, y = max(normalized, 0): the ReLU after the BatchNorm fused.
void batch_norm2d_normalize(const Launch& launch, const BatchNorm2dShape& s, const float* x,
                            const float* gamma, const float* beta, const float* mean,
                            const float* var, float* y, bool relu = false);
void batch_norm2d_sums(const Launch& launch, const BatchNorm2dShape& s, const float* x,
                       const float* shift, float* sum, float* sum_sq);
void batch_norm2d_stats_from_sums(const Launch& launch, const BatchNorm2dShape& s,
                                  std::int64_t count, const float* sum, const float* sum_sq,
                                  const float* shift, float* mean, float* var,
                                  float* running_mean, float* running_var);
// The backward passes; with relu_y (the fused ReLU's output) not null, of
// dy masked where relu_y > 0, the ReLU's backward fused.
void batch_norm2d_backward_reduce(const Launch& launch, const BatchNorm2dShape& s, const float* x,
                                  const float* dy, const float* mean, const float* var,
                                  float* dgamma, float* dbeta, const float* relu_y = nullptr);
void batch_norm2d_backward_elementwise(const Launch& launch, const BatchNorm2dShape& s,
                                       std::int64_t count, const float* x, const float* dy,
                                       const float* gamma, const float* mean, const float* var,
                                       const float* dgamma, const float* dbeta, float* dx,
                                       const float* relu_y = nullptr);
// cuDNN's saved inverse standard deviation 1 / sqrt(var + eps) to the
// biased variance the Backend's ops pass on, and back
// (CudaBackendOptions::batch_norm: cudnn).
void inverse_std_to_variance(const Launch& launch, int channels, float eps, const float* inv_std,
                             float* var);
void variance_to_inverse_std(const Launch& launch, int channels, float eps, const float* var,
                             float* inv_std);

// ---- losses (loss_kernels.cu). The sums of a loss, written on the device by
// one block in a fixed order (so they are reproducible) and copied to the
// host by the backend. bad_row is the first row whose label is not a class
// index (-1: none) and bad_label that label.
struct LossSums {
    double loss_sum;
    long long correct;
    int bad_row;
    int bad_label;
};
// With `totals` (device memory, backend/loss_totals.h) the kernel adds its
// sums there and notes a bad row, instead of writing `sums`: the step's loss
// without a copy to the host (Backend::add_loss_to_totals).
void softmax_cross_entropy(const Launch& launch, int batch, int classes, const float* logits,
                           const float* labels, float* dlogits, float grad_scale,
                           LossSums* sums, LossTotals* totals = nullptr);
void nll_loss(const Launch& launch, int batch, int classes, const float* log_probs,
              const float* labels, float* dlog_probs, float grad_scale, LossSums* sums,
              LossTotals* totals = nullptr);
void log_softmax_forward(const Launch& launch, int batch, int classes, const float* x, float* y);
void log_softmax_backward(const Launch& launch, int batch, int classes, const float* y,
                          const float* dy, float* dx);

// ---- the resident data set (step_kernels.cu)
// out[k] = rows[indices[k]] for k < count, rows of row_floats floats
// (Backend::gather_rows; loss_totals.h's gathered_row_start).
void gather_rows(const Launch& launch, const float* rows, std::size_t row_floats,
                 const float* indices, std::size_t count, float* out);

}  // namespace dp::cuda
