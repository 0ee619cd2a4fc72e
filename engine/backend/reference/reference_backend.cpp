#include "backend/reference/reference_backend.h"

#include "backend/reference/reference_ops.h"

#include <algorithm>
#include <cstring>

namespace dp {

std::string ReferenceBackend::name() const { return "reference"; }

void ReferenceBackend::conv2d_forward(const Conv2dShape& s, const float* x, const float* w,
                                      const float* b, float* y) {
    reference::conv2d_forward(s, x, w, b, y);
}

void ReferenceBackend::conv2d_backward_data(const Conv2dShape& s, const float* dy, const float* w,
                                            float* dx) {
    reference::conv2d_backward_data(s, dy, w, dx);
}

void ReferenceBackend::conv2d_backward_weights(const Conv2dShape& s, const float* x,
                                               const float* dy, float* dw, float* db) {
    reference::conv2d_backward_weights(s, x, dy, dw, db);
}

void ReferenceBackend::relu_forward(std::size_t n, const float* x, float* y) {
    reference::relu_forward(n, x, y);
}

void ReferenceBackend::relu_backward(std::size_t n, const float* y, const float* dy, float* dx) {
    reference::relu_backward(n, y, dy, dx);
}

void ReferenceBackend::avg_pool2d_forward(const Pool2dShape& s, const float* x, float* y) {
    reference::avg_pool2d_forward(s, x, y);
}

void ReferenceBackend::avg_pool2d_backward(const Pool2dShape& s, const float* dy, float* dx) {
    reference::avg_pool2d_backward(s, dy, dx);
}

void ReferenceBackend::relu_avg_pool2d_forward(const Pool2dShape& s, const float* x, float* y) {
    reference::relu_avg_pool2d_forward(s, x, y);
}

void ReferenceBackend::relu_avg_pool2d_backward(const Pool2dShape& s, const float* x,
                                                const float* dy, float* dx) {
    reference::relu_avg_pool2d_backward(s, x, dy, dx);
}

std::size_t ReferenceBackend::max_pool2d_workspace_size(const Pool2dShape& s) {
    return reference::max_pool2d_workspace_size(s);
}

void ReferenceBackend::max_pool2d_forward(const Pool2dShape& s, const float* x, float* y,
                                          void* workspace) {
    reference::max_pool2d_forward(s, x, y, workspace);
}

void ReferenceBackend::max_pool2d_backward(const Pool2dShape& s, const float* dy,
                                           const void* workspace, float* dx) {
    reference::max_pool2d_backward(s, dy, workspace, dx);
}

void ReferenceBackend::global_avg_pool2d_forward(const NchwShape& s, const float* x, float* y) {
    reference::global_avg_pool2d_forward(s, x, y);
}

void ReferenceBackend::global_avg_pool2d_backward(const NchwShape& s, const float* dy,
                                                  float* dx) {
    reference::global_avg_pool2d_backward(s, dy, dx);
}

void ReferenceBackend::add(std::size_t n, const float* a, const float* b, float* y) {
    reference::add(n, a, b, y);
}

void ReferenceBackend::scale(std::size_t n, float factor, float* x) {
    reference::scale(n, factor, x);
}

void ReferenceBackend::dropout_forward(std::size_t n, const DropoutConfig& config,
                                       const float* x, float* y, float* mask) {
    reference::dropout_forward(n, config, x, y, mask);
}

void ReferenceBackend::dropout2d_forward(const NchwShape& s, const DropoutConfig& config,
                                         const float* x, float* y, float* mask) {
    reference::dropout2d_forward(s, config, x, y, mask);
}

void ReferenceBackend::dropout_backward(std::size_t n, const float* mask, const float* dy,
                                        float* dx) {
    reference::dropout_backward(n, mask, dy, dx);
}

void ReferenceBackend::batch_norm2d_forward_training(const BatchNorm2dShape& s, const float* x,
                                                     const float* gamma, const float* beta,
                                                     float* y, float* mean, float* var,
                                                     float* running_mean, float* running_var) {
    reference::batch_norm2d_forward_training(s, x, gamma, beta, y, mean, var, running_mean,
                                             running_var);
}

void ReferenceBackend::batch_norm2d_forward_given_stats(const BatchNorm2dShape& s,
                                                        const float* x, const float* gamma,
                                                        const float* beta, const float* mean,
                                                        const float* var, float* y) {
    reference::batch_norm2d_forward_given_stats(s, x, gamma, beta, mean, var, y);
}

void ReferenceBackend::batch_norm2d_backward(const BatchNorm2dShape& s, const float* x,
                                             const float* dy, const float* gamma,
                                             const float* mean, const float* var, float* dx,
                                             float* dgamma, float* dbeta) {
    reference::batch_norm2d_backward(s, x, dy, gamma, mean, var, dx, dgamma, dbeta);
}

void ReferenceBackend::batch_norm2d_sums(const BatchNorm2dShape& s, const float* x,
                                         const float* shift, float* sum, float* sum_sq) {
    reference::batch_norm2d_sums(s, x, shift, sum, sum_sq);
}

void ReferenceBackend::batch_norm2d_stats_from_sums(const BatchNorm2dShape& s,
                                                    std::int64_t count, const float* sum,
                                                    const float* sum_sq, const float* shift,
                                                    float* mean, float* var, float* running_mean,
                                                    float* running_var) {
    reference::batch_norm2d_stats_from_sums(s, count, sum, sum_sq, shift, mean, var,
                                            running_mean, running_var);
}

void ReferenceBackend::batch_norm2d_backward_reduce(const BatchNorm2dShape& s, const float* x,
                                                    const float* dy, const float* mean,
                                                    const float* var, float* dgamma,
                                                    float* dbeta) {
    reference::batch_norm2d_backward_reduce(s, x, dy, mean, var, dgamma, dbeta);
}

void ReferenceBackend::batch_norm2d_backward_elementwise(
    const BatchNorm2dShape& s, std::int64_t count, const float* x, const float* dy,
    const float* gamma, const float* mean, const float* var, const float* dgamma,
    const float* dbeta, float* dx) {
    reference::batch_norm2d_backward_elementwise(s, count, x, dy, gamma, mean, var, dgamma, dbeta,
                                                 dx);
}

void ReferenceBackend::linear_forward(const LinearShape& s, const float* x, const float* w,
                                      const float* b, float* y) {
    reference::linear_forward(s, x, w, b, y);
}

void ReferenceBackend::linear_backward_data(const LinearShape& s, const float* dy, const float* w,
                                            float* dx) {
    reference::linear_backward_data(s, dy, w, dx);
}

void ReferenceBackend::linear_backward_weights(const LinearShape& s, const float* x,
                                               const float* dy, float* dw, float* db) {
    reference::linear_backward_weights(s, x, dy, dw, db);
}

Backend::LossResult ReferenceBackend::softmax_cross_entropy(int batch, int classes,
                                                            const float* logits,
                                                            const float* labels, float* dlogits,
                                                            float grad_scale) {
    return reference::softmax_cross_entropy(batch, classes, logits, labels, dlogits, grad_scale);
}

void ReferenceBackend::log_softmax_forward(int batch, int classes, const float* x, float* y) {
    reference::log_softmax_forward(batch, classes, x, y);
}

void ReferenceBackend::log_softmax_backward(int batch, int classes, const float* y,
                                            const float* dy, float* dx) {
    reference::log_softmax_backward(batch, classes, y, dy, dx);
}

Backend::LossResult ReferenceBackend::nll_loss(int batch, int classes, const float* log_probs,
                                               const float* labels, float* dlog_probs,
                                               float grad_scale) {
    return reference::nll_loss(batch, classes, log_probs, labels, dlog_probs, grad_scale);
}

void ReferenceBackend::sgd_update(std::size_t n, float lr, float* param, const float* grad) {
    reference::sgd_update(n, lr, param, grad);
}

}  // namespace dp
