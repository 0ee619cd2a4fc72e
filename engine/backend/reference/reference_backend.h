#pragma once

#include "backend/host_memory_backend.h"

namespace dp {

// The Backend on host memory, computing with the naive float loops of
// reference_ops.h: slow, single-threaded and synchronous, but the standard
// that the fast backends are tested against. It shares no loop with them
// (not even the host loops of backend/host/host_kernels.h), so that a test
// comparing a fast backend with it compares two implementations.
class ReferenceBackend final : public HostMemoryBackend {
public:
    std::string name() const override;

    void conv2d_forward(const Conv2dShape& s, const float* x, const float* w, const float* b,
                        float* y) override;
    void conv2d_backward_data(const Conv2dShape& s, const float* dy, const float* w,
                              float* dx) override;
    void conv2d_backward_weights(const Conv2dShape& s, const float* x, const float* dy, float* dw,
                                 float* db) override;

    void relu_forward(std::size_t n, const float* x, float* y) override;
    void relu_backward(std::size_t n, const float* y, const float* dy, float* dx) override;

    void avg_pool2d_forward(const Pool2dShape& s, const float* x, float* y) override;
    void avg_pool2d_backward(const Pool2dShape& s, const float* dy, float* dx) override;
    void relu_avg_pool2d_forward(const Pool2dShape& s, const float* x, float* y) override;
    void relu_avg_pool2d_backward(const Pool2dShape& s, const float* x, const float* dy,
                                  float* dx) override;

    std::size_t max_pool2d_workspace_size(const Pool2dShape& s) override;
    void max_pool2d_forward(const Pool2dShape& s, const float* x, float* y,
                            void* workspace) override;
    void max_pool2d_backward(const Pool2dShape& s, const float* dy, const void* workspace,
                             float* dx) override;

    void global_avg_pool2d_forward(const NchwShape& s, const float* x, float* y) override;
    void global_avg_pool2d_backward(const NchwShape& s, const float* dy, float* dx) override;

    void add(std::size_t n, const float* a, const float* b, float* y) override;
    void scale(std::size_t n, float factor, float* x) override;

    void dropout_forward(std::size_t n, const DropoutConfig& config, const float* x, float* y,
                         float* mask) override;
    void dropout2d_forward(const NchwShape& s, const DropoutConfig& config, const float* x,
                           float* y, float* mask) override;
    void dropout_backward(std::size_t n, const float* mask, const float* dy, float* dx) override;

    void batch_norm2d_forward_training(const BatchNorm2dShape& s, const float* x,
                                       const float* gamma, const float* beta, float* y,
                                       float* mean, float* var, float* running_mean,
                                       float* running_var) override;
    void batch_norm2d_forward_given_stats(const BatchNorm2dShape& s, const float* x,
                                          const float* gamma, const float* beta,
                                          const float* mean, const float* var,
                                          float* y) override;
    void batch_norm2d_backward(const BatchNorm2dShape& s, const float* x, const float* dy,
                               const float* gamma, const float* mean, const float* var, float* dx,
                               float* dgamma, float* dbeta) override;
    void batch_norm2d_sums(const BatchNorm2dShape& s, const float* x, const float* shift,
                           float* sum, float* sum_sq) override;
    void batch_norm2d_stats_from_sums(const BatchNorm2dShape& s, std::int64_t count,
                                      const float* sum, const float* sum_sq, const float* shift,
                                      float* mean, float* var, float* running_mean,
                                      float* running_var) override;
    void batch_norm2d_backward_reduce(const BatchNorm2dShape& s, const float* x, const float* dy,
                                      const float* mean, const float* var, float* dgamma,
                                      float* dbeta) override;
    void batch_norm2d_backward_elementwise(const BatchNorm2dShape& s, std::int64_t count,
                                           const float* x, const float* dy, const float* gamma,
                                           const float* mean, const float* var,
                                           const float* dgamma, const float* dbeta,
                                           float* dx) override;

    void linear_forward(const LinearShape& s, const float* x, const float* w, const float* b,
                        float* y) override;
    void linear_backward_data(const LinearShape& s, const float* dy, const float* w,
                              float* dx) override;
    void linear_backward_weights(const LinearShape& s, const float* x, const float* dy, float* dw,
                                 float* db) override;

    LossResult softmax_cross_entropy(int batch, int classes, const float* logits,
                                     const float* labels, float* dlogits,
                                     float grad_scale) override;

    void log_softmax_forward(int batch, int classes, const float* x, float* y) override;
    void log_softmax_backward(int batch, int classes, const float* y, const float* dy,
                              float* dx) override;
    LossResult nll_loss(int batch, int classes, const float* log_probs, const float* labels,
                        float* dlog_probs, float grad_scale) override;

    void sgd_update(std::size_t n, float lr, float* param, const float* grad) override;
};

}  // namespace dp
