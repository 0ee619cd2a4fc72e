#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "backend/op_clock.h"
#include "backend/step_graph.h"

namespace dp {

// Shapes of the ops. Each is a complete key for the plan a backend caches, so
// a backend builds its primitives (oneDNN) or picks its algorithms (cuDNN) once
// per shape and never in the step loop after the first batch of that shape.
struct Conv2dShape {
    int batch = 0;
    int in_channels = 0, in_h = 0, in_w = 0;
    int out_channels = 0, kernel = 0;
    int stride = 1, pad = 0;

    int out_h() const { return (in_h + 2 * pad - kernel) / stride + 1; }
    int out_w() const { return (in_w + 2 * pad - kernel) / stride + 1; }
    // Element counts of x, w and y.
    std::size_t input_size() const { return std::size_t(batch) * in_channels * in_h * in_w; }
    std::size_t weight_size() const {
        return std::size_t(out_channels) * in_channels * kernel * kernel;
    }
    std::size_t output_size() const {
        return std::size_t(batch) * out_channels * out_h() * out_w();
    }
    auto operator<=>(const Conv2dShape&) const = default;
};

// Average and max pooling with square windows. Padding, at most kernel / 2
// on every side (PyTorch's limit), is never the maximum of a window and
// counts as zeros in its average (PyTorch's count_include_pad=True default:
// every window divides by kernel^2).
struct Pool2dShape {
    int batch = 0;
    int channels = 0, in_h = 0, in_w = 0;
    int kernel = 2, stride = 2;
    int pad = 0;

    int out_h() const { return (in_h + 2 * pad - kernel) / stride + 1; }
    int out_w() const { return (in_w + 2 * pad - kernel) / stride + 1; }
    // Element counts of x and y.
    std::size_t input_size() const { return std::size_t(batch) * channels * in_h * in_w; }
    std::size_t output_size() const { return std::size_t(batch) * channels * out_h() * out_w(); }
    auto operator<=>(const Pool2dShape&) const = default;
};

// An NCHW activation, for the ops that act on whole planes: global average
// pooling and dropout2d.
struct NchwShape {
    int batch = 0;
    int channels = 0, h = 0, w = 0;
    std::size_t size() const { return std::size_t(batch) * channels * h * w; }
    auto operator<=>(const NchwShape&) const = default;
};

// nn.BatchNorm2d(channels, eps, momentum) on an N x C x H x W activation:
// statistics per channel over the count = N * H * W elements of its planes.
struct BatchNorm2dShape {
    int batch = 0;
    int channels = 0, h = 0, w = 0;
    float eps = 1e-5f;       // added to the variance
    float momentum = 0.1f;   // running = (1 - momentum) * running + momentum * batch value
    // Element count of x (and y).
    std::size_t size() const { return std::size_t(batch) * channels * h * w; }
    // The elements of each channel, over which batch normalization takes statistics.
    std::int64_t count_per_channel() const { return std::int64_t(batch) * h * w; }
    auto operator<=>(const BatchNorm2dShape&) const = default;
};

// The randomness of dropout, counter-based so that a mask depends only on
// these numbers: not on threads, backend or batch split. Unit i (an element
// for dropout, an N x C plane for dropout2d) of a call is dropped when a
// hash of (seed, step, offset + i) falls below p; the others are scaled by
// 1 / (1 - p). A new step gives a new mask; a data-parallel shard passes as
// offset the index of its first unit in the global batch and gets exactly
// the mask that the whole batch would give it.
struct DropoutConfig {
    float p = 0.5f;  // in [0, 1]
    std::uint64_t seed = 0;
    std::uint64_t step = 0;
    std::uint64_t offset = 0;
};

struct LinearShape {
    int batch = 0;
    int in_features = 0, out_features = 0;
    // Element counts of x, w and y.
    std::size_t input_size() const { return std::size_t(batch) * in_features; }
    std::size_t weight_size() const { return std::size_t(out_features) * in_features; }
    std::size_t output_size() const { return std::size_t(batch) * out_features; }
    auto operator<=>(const LinearShape&) const = default;
};

// Device memory owned by a backend: host memory for the CPU, GPU memory for CUDA.
using DeviceBuffer = std::unique_ptr<float, void (*)(float*)>;

// The one interface through which layers compute. Layers never call a vendor
// library; each backend implements every op (forward and backward) once.
// Layouts are PyTorch's: activations NCHW, conv weights OIHW, linear weights
// [out, in]. All pointers are device pointers of this backend. Backward ops
// overwrite their outputs (each parameter is used once per step).
class Backend {
public:
    virtual ~Backend() = default;

    virtual std::string name() const = 0;

    // Whether the host reads this backend's memory without waiting for
    // queued work (host memory, ops finished when they return): a run then
    // reads each step's loss after it (train/training_run.cpp); else only
    // now and then, so that steps queue without waiting for the device.
    virtual bool host_reads_are_free() const { return false; }

    // A clock of `capacity` marks in this backend's queue (backend/op_clock.h):
    // what the step's phases and the per-op timer are timed by.
    virtual std::unique_ptr<OpClock> make_op_clock(std::size_t capacity) = 0;

    // Memory. Labels live on the device as float class indices (exact below 2^24).
    virtual DeviceBuffer allocate(std::size_t floats) = 0;
    virtual void upload(const float* host, float* device, std::size_t floats) = 0;
    virtual void download(const float* device, float* host, std::size_t floats) = 0;
    virtual void upload_labels(const std::int32_t* host, float* device, std::size_t count) = 0;
    virtual void fill(float* device, std::size_t floats, float value) = 0;

    // The data set resident on the device (issue 40: no batch copied in
    // during a step): `floats` host values as device memory that lives as
    // long as the host's do. On host memory the host values themselves, not
    // copied; on a GPU a copy, made once.
    virtual DeviceBuffer resident_copy(const float* host, std::size_t floats) = 0;
    // out[k] = rows[indices[k]] for k < count, each row `row_floats` floats:
    // a batch gathered on the device by the epoch's order, kept in device
    // memory as float indices (exact below 2^24, as labels are).
    virtual void gather_rows(const float* rows, std::size_t row_floats, const float* indices,
                             std::size_t count, float* out) = 0;

    // y = conv(x, w) + b; without the bias where b is null (a convolution
    // feeding a BatchNorm in training, which subtracts the batch mean: nn/conv2d.h).
    virtual void conv2d_forward(const Conv2dShape& s, const float* x, const float* w,
                                const float* b, float* y) = 0;
    virtual void conv2d_backward_data(const Conv2dShape& s, const float* dy, const float* w,
                                      float* dx) = 0;
    // dw, and db unless it is null (then the bias gradient is not summed).
    virtual void conv2d_backward_weights(const Conv2dShape& s, const float* x, const float* dy,
                                         float* dw, float* db) = 0;

    virtual void relu_forward(std::size_t n, const float* x, float* y) = 0;
    // dx = dy where y > 0, else 0 (y is the forward output)
    virtual void relu_backward(std::size_t n, const float* y, const float* dy, float* dx) = 0;

    virtual void avg_pool2d_forward(const Pool2dShape& s, const float* x, float* y) = 0;
    virtual void avg_pool2d_backward(const Pool2dShape& s, const float* dy, float* dx) = 0;

    // nn.ReLU then nn.AvgPool2d in one pass over x, the ReLU's output never
    // stored: y = mean of max(x, 0) over each window. Its backward is
    // avg_pool2d_backward's dx where x > 0, else 0. (LeNet's convolutions
    // feed one: as separate ops, the four passes over their outputs took a
    // fifth of its step.)
    virtual void relu_avg_pool2d_forward(const Pool2dShape& s, const float* x, float* y) = 0;
    virtual void relu_avg_pool2d_backward(const Pool2dShape& s, const float* x, const float* dy,
                                          float* dx) = 0;

    // y = maximum of each window. The forward records which element won in
    // a workspace that the caller owns, one per layer (layers of one shape
    // may run at once), of max_pool2d_workspace_size(s) bytes: allocate()
    // that many bytes rounded up to floats. Its contents are the backend's;
    // one sized for a batch serves every smaller batch of the same geometry.
    virtual std::size_t max_pool2d_workspace_size(const Pool2dShape& s) = 0;
    virtual void max_pool2d_forward(const Pool2dShape& s, const float* x, float* y,
                                    void* workspace) = 0;
    // dx: each window's dy goes to its maximum (the first in row-major order
    // on ties), summed where windows overlap; 0 elsewhere.
    virtual void max_pool2d_backward(const Pool2dShape& s, const float* dy,
                                     const void* workspace, float* dx) = 0;

    // nn.AdaptiveAvgPool2d(1): y[n][c] = mean of the plane x[n][c]; y is N x C (x 1 x 1).
    virtual void global_avg_pool2d_forward(const NchwShape& s, const float* x, float* y) = 0;
    virtual void global_avg_pool2d_backward(const NchwShape& s, const float* dy, float* dx) = 0;

    // y = a + b (a residual connection); y may be a or b. Its backward needs
    // no op: da = db = dy, so both branches can read the one dy buffer.
    virtual void add(std::size_t n, const float* a, const float* b, float* y) = 0;
    // dst += src: sums the gradients of a tensor that feeds several branches.
    void accumulate(std::size_t n, const float* src, float* dst) { add(n, dst, src, dst); }
    // dst = src
    virtual void copy(std::size_t n, const float* src, float* dst) = 0;
    // x *= factor (averaging what an all-reduce summed).
    virtual void scale(std::size_t n, float factor, float* x) = 0;

    // Training-mode dropout (nn.Dropout): y = x * mask, mask[i] = 0 or
    // 1 / (1 - p) drawn per element as DropoutConfig says. The mask, n
    // floats, is kept for the backward. y may be x.
    virtual void dropout_forward(std::size_t n, const DropoutConfig& config, const float* x,
                                 float* y, float* mask) = 0;
    // nn.Dropout2d: one draw per N x C plane, written to every element of
    // the plane's mask (the mask is as large as x), so that one backward
    // serves both.
    virtual void dropout2d_forward(const NchwShape& s, const DropoutConfig& config,
                                   const float* x, float* y, float* mask) = 0;
    // dx = dy * mask
    virtual void dropout_backward(std::size_t n, const float* mask, const float* dy,
                                  float* dx) = 0;

    // Batch normalization, training mode: with the batch mean and biased
    // variance of each channel, y = gamma * (x - mean) / sqrt(var + eps) + beta.
    // mean and var (C floats each) are written for the backward, and the
    // running statistics updated in place as PyTorch does, the variance
    // unbiased: running_var = (1 - momentum) * running_var + momentum *
    // var * count / (count - 1). Needs count > 1.
    virtual void batch_norm2d_forward_training(const BatchNorm2dShape& s, const float* x,
                                               const float* gamma, const float* beta, float* y,
                                               float* mean, float* var, float* running_mean,
                                               float* running_var) = 0;
    // The same y with statistics given, not computed nor updated: the running
    // ones in evaluation mode, the global ones of synchronized batch
    // normalization in training (see below).
    virtual void batch_norm2d_forward_given_stats(const BatchNorm2dShape& s, const float* x,
                                                  const float* gamma, const float* beta,
                                                  const float* mean, const float* var,
                                                  float* y) = 0;
    // The backward of the training forward, from its saved mean and var.
    virtual void batch_norm2d_backward(const BatchNorm2dShape& s, const float* x,
                                       const float* dy, const float* gamma, const float* mean,
                                       const float* var, float* dx, float* dgamma,
                                       float* dbeta) = 0;

    // Synchronized batch normalization (nn.SyncBatchNorm) is built from the
    // four ops below, each replica r holding a shard x_r of the batch, with
    // s its shard's shape and count the global N * H * W:
    //  forward:  batch_norm2d_sums(s, x_r, running_mean, sum, sum_sq);
    //            all-reduce (sum) of sum and sum_sq, 2C floats;
    //            batch_norm2d_stats_from_sums(s, count, sum, sum_sq, running_mean,
    //                                         mean, var, running_mean, running_var);
    //            batch_norm2d_forward_given_stats(s, x_r, gamma, beta, mean, var, y_r);
    //  backward: batch_norm2d_backward_reduce(s, x_r, dy_r, mean, var, dgamma, dbeta);
    //            all-reduce (sum) of dgamma and dbeta, 2C floats;
    //            batch_norm2d_backward_elementwise(s, count, x_r, dy_r, gamma, mean, var,
    //                                              dgamma, dbeta, dx_r).
    // Every replica then holds the global mean, var and running statistics,
    // and the gradients of gamma and beta summed over the global batch: they
    // must not be all-reduced again with the other gradients. With one
    // replica this is exactly the training forward and backward above.
    // Evaluation-mode (frozen) batch normalization uses the same two backward
    // ops with the running statistics and no all-reduce, passing zeros as
    // dgamma and dbeta to batch_norm2d_backward_elementwise (the statistics
    // are constants): dx = gamma * dy / sqrt(var + eps).

    // Per channel, sum = sum of (x - shift) and sum_sq = sum of (x - shift)^2
    // (shift may be null: 0). A shift near the mean, such as the running
    // mean, keeps sum_sq / count - (sum / count)^2 free of cancellation.
    virtual void batch_norm2d_sums(const BatchNorm2dShape& s, const float* x,
                                   const float* shift, float* sum, float* sum_sq) = 0;
    // mean and biased var of `count` values per channel from their sums (the
    // same shift, which may be running_mean), and the running statistics
    // updated as by the training forward with that count.
    virtual void batch_norm2d_stats_from_sums(const BatchNorm2dShape& s, std::int64_t count,
                                              const float* sum, const float* sum_sq,
                                              const float* shift, float* mean, float* var,
                                              float* running_mean, float* running_var) = 0;
    // Per channel, dgamma = sum of dy * (x - mean) / sqrt(var + eps) and dbeta = sum of dy.
    virtual void batch_norm2d_backward_reduce(const BatchNorm2dShape& s, const float* x,
                                              const float* dy, const float* mean,
                                              const float* var, float* dgamma,
                                              float* dbeta) = 0;
    // dx = gamma / sqrt(var + eps) * (dy - dbeta / count - xhat * dgamma / count),
    // xhat = (x - mean) / sqrt(var + eps), with dgamma and dbeta summed over
    // the `count` elements of each channel.
    virtual void batch_norm2d_backward_elementwise(const BatchNorm2dShape& s, std::int64_t count,
                                                   const float* x, const float* dy,
                                                   const float* gamma, const float* mean,
                                                   const float* var, const float* dgamma,
                                                   const float* dbeta, float* dx) = 0;

    // A BatchNorm followed by a ReLU (ResidualBlock's bn1 and relu, and bn2
    // with the shortcut's add between them where there is none) in one pass
    // each way, as CUDA's fused kernels run them; by default the two ops.
    // Forward: y = max(batch_norm2d_forward_training's y, 0), in place. A layer
    // pair using it keeps only y (the ReLU's output) and passes it to the
    // backward, whose dy is the gradient of y: dx is the BatchNorm's input
    // gradient of dy masked where y > 0, dgamma and dbeta its sums. By
    // default the masked gradient goes through dx, which the BatchNorm
    // backward then reads and overwrites element by element (every backend's
    // backward reads an element's dy before it writes its dx).
    virtual void batch_norm2d_relu_forward_training(const BatchNorm2dShape& s, const float* x,
                                                    const float* gamma, const float* beta,
                                                    float* y, float* mean, float* var,
                                                    float* running_mean, float* running_var) {
        batch_norm2d_forward_training(s, x, gamma, beta, y, mean, var, running_mean, running_var);
        relu_forward(s.size(), y, y);
    }
    virtual void batch_norm2d_relu_backward(const BatchNorm2dShape& s, const float* x,
                                            const float* y, const float* dy, const float* gamma,
                                            const float* mean, const float* var, float* dx,
                                            float* dgamma, float* dbeta) {
        relu_backward(s.size(), y, dy, dx);
        batch_norm2d_backward(s, x, dx, gamma, mean, var, dx, dgamma, dbeta);
    }

    // y = x w^T + b, w is [out, in]
    virtual void linear_forward(const LinearShape& s, const float* x, const float* w,
                                const float* b, float* y) = 0;
    virtual void linear_backward_data(const LinearShape& s, const float* dy, const float* w,
                                      float* dx) = 0;
    virtual void linear_backward_weights(const LinearShape& s, const float* x, const float* dy,
                                         float* dw, float* db) = 0;

    // Softmax cross-entropy over `batch` rows of `classes` logits. Returns the
    // loss summed over the rows and the number of rows whose arg-max equals
    // the label. If dlogits is not null it receives grad_scale * d(sum)/dlogits;
    // data parallelism passes 1 / global batch so shards sum to the global mean.
    struct LossResult {
        double loss_sum = 0;
        std::int64_t correct = 0;
    };
    virtual LossResult softmax_cross_entropy(int batch, int classes, const float* logits,
                                             const float* labels, float* dlogits,
                                             float grad_scale) = 0;

    // y = log softmax of each of `batch` rows of `classes` values (nn.LogSoftmax(1)).
    virtual void log_softmax_forward(int batch, int classes, const float* x, float* y) = 0;
    // dx = dy - exp(y) * (sum of the row's dy), from the forward output y.
    virtual void log_softmax_backward(int batch, int classes, const float* y, const float* dy,
                                      float* dx) = 0;
    // Negative log-likelihood (F.nll_loss, summed) of rows of log-probabilities:
    // the loss sum is -sum of log_probs[n][label n], correct counts as for
    // softmax_cross_entropy, and dlog_probs, if not null, receives
    // grad_scale * d(sum)/dlog_probs: -grad_scale at the label, 0 elsewhere.
    // After log_softmax_forward it is softmax_cross_entropy of the logits.
    virtual LossResult nll_loss(int batch, int classes, const float* log_probs,
                                const float* labels, float* dlog_probs, float grad_scale) = 0;

    // The loss of either kind above added into `totals`, kLossTotalsFloats
    // floats of device memory (zeroed by allocate), instead of returned: the
    // step queues it and goes on without waiting for the device (issue 40).
    // take_loss_totals reads the sums since the last take, once an epoch or
    // now and then (a wait for the device), zeroes them, and throws dp::Error
    // naming the first row whose label was not a class index.
    enum class LossKind { softmax_cross_entropy, nll };
    static constexpr std::size_t kLossTotalsFloats = 8;
    virtual void add_loss_to_totals(LossKind kind, int batch, int classes, const float* outputs,
                                    const float* labels, float* doutputs, float grad_scale,
                                    float* totals) = 0;
    virtual LossResult take_loss_totals(float* totals) = 0;

    // param -= lr * grad
    virtual void sgd_update(std::size_t n, float lr, float* param, const float* grad) = 0;

    // Blocks until all queued work is done (a no-op on synchronous backends).
    virtual void synchronize() = 0;

    // One training step's device work, which `step` enqueues: a backend with
    // CUDA Graphs (DP_CUDA_GRAPHS=1) may capture it and replay the graph for
    // later steps of the same key, when the request says the step can be
    // captured (step_graph.h says what that takes). Others run it; so does
    // CUDA when graphs are off. Returns what was done.
    virtual StepGraphAction run_step(const StepGraphRequest& request, StepWork step) {
        (void)request;
        step();
        return StepGraphAction::eager;
    }
};

}  // namespace dp
