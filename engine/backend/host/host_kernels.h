#pragma once

// The host loops of the CPU backends, for the ops (or parts of ops) that
// oneDNN has no primitive for, or none with this contract: bias gradients
// summed in double, dropout's counter-based masks, batch normalization's
// statistics and the reductions of synchronized batch normalization, and
// the classification losses. Each runs its channels, units or rows on the
// OpenMP threads where there are enough of them; a channel's, unit's or
// row's arithmetic never depends on the thread count, so the results are
// the same bits on any machine.
//
// These are the fast path's loops, not the oracle: ReferenceBackend has its
// own naive loops (backend/reference/reference_ops.h), written separately,
// so that the tests comparing OneDnnBackend with it compare two
// implementations. Layouts and contracts are those of dp::Backend.

#include <cstddef>
#include <cstdint>

#include "backend/backend.h"

namespace dp::host {

// Throws dp::Error unless the padding is within PyTorch's limit, kernel / 2,
// so that every window holds at least one input element.
void check_pool2d_shape(const Pool2dShape& s);

// dp::Backend's ReLU fused before average pooling (host_pooling.cpp):
// vectorized for 2x2 windows of stride 2, plain loops for any other.
void relu_avg_pool2d_forward(const Pool2dShape& s, const float* x, float* y);
void relu_avg_pool2d_backward(const Pool2dShape& s, const float* x, const float* dy, float* dx);

// db[o] = dy summed over the batch and the positions of output channel o:
// each plane (one sample's H x W) in vectorized float lanes, the planes in
// double. A bias gradient is a sum of many terms that mostly cancel, so a
// float sum across samples would make it depend on how the batch was split;
// a plane never straddles a split.
void conv2d_bias_backward(const Conv2dShape& s, const float* dy, float* db);
// db[o] = dy[., o] summed over the batch, in double as conv2d_bias_backward.
void linear_bias_backward(const LinearShape& s, const float* dy, float* db);

// The random draws of dropout: unit i of a call is dropped when
// uniform(offset + i) < p. uniform hashes its counter with the output
// function of SplitMix64 (Steele, Lea and Flood, 2014), whose stream for
// (seed, step) starts at a key mixed from both: a counter-based generator
// like Philox, so any unit can be drawn alone, on any thread, in any order.
class DropoutDraw {
public:
    // Throws dp::Error unless config.p is in [0, 1].
    explicit DropoutDraw(const DropoutConfig& config);

    // A 24-bit uniform float in [0, 1).
    float uniform(std::uint64_t unit) const {
        return float(mix(key_ + (offset_ + unit + 1) * kGolden) >> 40) * 0x1p-24f;
    }
    // The mask value of a unit: 0 with probability p, else 1 / (1 - p).
    float mask(std::uint64_t unit) const { return uniform(unit) < p_ ? 0.0f : scale_; }

private:
    static constexpr std::uint64_t kGolden = 0x9e3779b97f4a7c15;  // 2^64 / golden ratio
    static std::uint64_t mix(std::uint64_t z) {
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
        z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
        return z ^ (z >> 31);
    }

    std::uint64_t key_, offset_;
    float p_, scale_;
};

// Training-mode dropout (units of one element) and dropout2d (units of one
// N x C plane): y = x * mask, the mask kept for the backward. y may be x.
void dropout_forward(std::size_t n, const DropoutConfig& config, const float* x, float* y,
                     float* mask);
void dropout2d_forward(const NchwShape& s, const DropoutConfig& config, const float* x, float* y,
                       float* mask);

// ------------------------------------------------------------ batch_norm2d
// Per channel c, over its count = N * H * W elements: vectorized float sums
// of at most 64 terms, added in double in a fixed order (host_kernels.cpp).

// Each channel's mean and biased variance in two passes, the second shifted
// by the first's mean (as PyTorch), so a variance tiny next to the mean
// keeps its digits.
void batch_norm2d_statistics(const BatchNorm2dShape& s, const float* x, float* mean, float* var);

// y = gamma * (x - mean) / sqrt(var + eps) + beta, with the statistics given.
void batch_norm2d_normalize(const BatchNorm2dShape& s, const float* x, const float* gamma,
                            const float* beta, const float* mean, const float* var, float* y);

// running = (1 - momentum) * running + momentum * batch value, the batch
// variance made unbiased (x count / (count - 1)) as PyTorch does. Throws
// dp::Error unless count > 1.
void update_running_stats(const BatchNorm2dShape& s, std::int64_t count, const float* mean,
                          const float* var, float* running_mean, float* running_var);

// The four ops of synchronized batch normalization (see dp::Backend).
void batch_norm2d_sums(const BatchNorm2dShape& s, const float* x, const float* shift, float* sum,
                       float* sum_sq);
void batch_norm2d_stats_from_sums(const BatchNorm2dShape& s, std::int64_t count, const float* sum,
                                  const float* sum_sq, const float* shift, float* mean, float* var,
                                  float* running_mean, float* running_var);
void batch_norm2d_backward_reduce(const BatchNorm2dShape& s, const float* x, const float* dy,
                                  const float* mean, const float* var, float* dgamma,
                                  float* dbeta);
void batch_norm2d_backward_elementwise(const BatchNorm2dShape& s, std::int64_t count,
                                       const float* x, const float* dy, const float* gamma,
                                       const float* mean, const float* var, const float* dgamma,
                                       const float* dbeta, float* dx);

// ------------------------------------------------------------ losses
// A few thousand floats a batch: one loop over the rows, in float.

Backend::LossResult softmax_cross_entropy(int batch, int classes, const float* logits,
                                          const float* labels, float* dlogits, float grad_scale);
Backend::LossResult nll_loss(int batch, int classes, const float* log_probs, const float* labels,
                             float* dlog_probs, float grad_scale);

}  // namespace dp::host
