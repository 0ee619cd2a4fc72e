#include "backend/forwarding_backend.h"

#include <type_traits>
#include <utility>

#include "backend/op_clock.h"

namespace dp {

const char* op_family_name(OpFamily family) {
    switch (family) {
    case OpFamily::conv_forward: return "conv forward";
    case OpFamily::conv_backward_data: return "conv backward data";
    case OpFamily::conv_backward_weights: return "conv backward weights";
    case OpFamily::batch_norm: return "batch norm";
    case OpFamily::elementwise: return "elementwise";
    case OpFamily::pooling: return "pooling";
    case OpFamily::linear: return "linear";
    case OpFamily::loss: return "loss";
    case OpFamily::update: return "update";
    case OpFamily::data: return "batch gather";
    case OpFamily::allocate: return "allocate";
    case OpFamily::upload: return "upload";
    case OpFamily::download: return "download";
    case OpFamily::fill: return "fill";
    case OpFamily::wait: return "wait";
    }
    return "?";
}

ForwardingBackend::ForwardingBackend(std::unique_ptr<Backend> inner) : inner_(std::move(inner)) {}

template <typename Call>
decltype(auto) ForwardingBackend::around(OpFamily family, Call&& call) {
    before_op(family);
    if constexpr (std::is_void_v<decltype(call())>) {
        call();
        after_op(family);
    } else {
        decltype(auto) result = call();
        after_op(family);
        return result;
    }
}

std::string ForwardingBackend::name() const { return inner_->name(); }
bool ForwardingBackend::host_reads_are_free() const { return inner_->host_reads_are_free(); }
std::unique_ptr<OpClock> ForwardingBackend::make_op_clock(std::size_t capacity) {
    return inner_->make_op_clock(capacity);
}

// ---- memory

DeviceBuffer ForwardingBackend::allocate(std::size_t floats) {
    return around(OpFamily::allocate, [&] { return inner_->allocate(floats); });
}
void ForwardingBackend::upload(const float* host, float* device, std::size_t floats) {
    around(OpFamily::upload, [&] { inner_->upload(host, device, floats); });
}
void ForwardingBackend::download(const float* device, float* host, std::size_t floats) {
    around(OpFamily::download, [&] { inner_->download(device, host, floats); });
}
void ForwardingBackend::upload_labels(const std::int32_t* host, float* device, std::size_t count) {
    around(OpFamily::upload, [&] { inner_->upload_labels(host, device, count); });
}
void ForwardingBackend::fill(float* device, std::size_t floats, float value) {
    around(OpFamily::fill, [&] { inner_->fill(device, floats, value); });
}
DeviceBuffer ForwardingBackend::resident_copy(const float* host, std::size_t floats) {
    return around(OpFamily::upload, [&] { return inner_->resident_copy(host, floats); });
}
void ForwardingBackend::gather_rows(const float* rows, std::size_t row_floats,
                                    const float* indices, std::size_t count, float* out) {
    around(OpFamily::data, [&] { inner_->gather_rows(rows, row_floats, indices, count, out); });
}

// ---- convolution

void ForwardingBackend::conv2d_forward(const Conv2dShape& s, const float* x, const float* w,
                                       const float* b, float* y) {
    around(OpFamily::conv_forward, [&] { inner_->conv2d_forward(s, x, w, b, y); });
}
void ForwardingBackend::conv2d_backward_data(const Conv2dShape& s, const float* dy, const float* w,
                                             float* dx) {
    around(OpFamily::conv_backward_data, [&] { inner_->conv2d_backward_data(s, dy, w, dx); });
}
void ForwardingBackend::conv2d_backward_weights(const Conv2dShape& s, const float* x,
                                                const float* dy, float* dw, float* db) {
    around(OpFamily::conv_backward_weights,
           [&] { inner_->conv2d_backward_weights(s, x, dy, dw, db); });
}

// ---- activations and pooling

void ForwardingBackend::relu_forward(std::size_t n, const float* x, float* y) {
    around(OpFamily::elementwise, [&] { inner_->relu_forward(n, x, y); });
}
void ForwardingBackend::relu_backward(std::size_t n, const float* y, const float* dy, float* dx) {
    around(OpFamily::elementwise, [&] { inner_->relu_backward(n, y, dy, dx); });
}
void ForwardingBackend::avg_pool2d_forward(const Pool2dShape& s, const float* x, float* y) {
    around(OpFamily::pooling, [&] { inner_->avg_pool2d_forward(s, x, y); });
}
void ForwardingBackend::avg_pool2d_backward(const Pool2dShape& s, const float* dy, float* dx) {
    around(OpFamily::pooling, [&] { inner_->avg_pool2d_backward(s, dy, dx); });
}
void ForwardingBackend::relu_avg_pool2d_forward(const Pool2dShape& s, const float* x, float* y) {
    around(OpFamily::pooling, [&] { inner_->relu_avg_pool2d_forward(s, x, y); });
}
void ForwardingBackend::relu_avg_pool2d_backward(const Pool2dShape& s, const float* x,
                                                 const float* dy, float* dx) {
    around(OpFamily::pooling, [&] { inner_->relu_avg_pool2d_backward(s, x, dy, dx); });
}
// A size, not work on the device: no hooks.
std::size_t ForwardingBackend::max_pool2d_workspace_size(const Pool2dShape& s) {
    return inner_->max_pool2d_workspace_size(s);
}
void ForwardingBackend::max_pool2d_forward(const Pool2dShape& s, const float* x, float* y,
                                           void* workspace) {
    around(OpFamily::pooling, [&] { inner_->max_pool2d_forward(s, x, y, workspace); });
}
void ForwardingBackend::max_pool2d_backward(const Pool2dShape& s, const float* dy,
                                            const void* workspace, float* dx) {
    around(OpFamily::pooling, [&] { inner_->max_pool2d_backward(s, dy, workspace, dx); });
}
void ForwardingBackend::global_avg_pool2d_forward(const NchwShape& s, const float* x, float* y) {
    around(OpFamily::pooling, [&] { inner_->global_avg_pool2d_forward(s, x, y); });
}
void ForwardingBackend::global_avg_pool2d_backward(const NchwShape& s, const float* dy,
                                                   float* dx) {
    around(OpFamily::pooling, [&] { inner_->global_avg_pool2d_backward(s, dy, dx); });
}

// ---- elementwise and dropout

void ForwardingBackend::add(std::size_t n, const float* a, const float* b, float* y) {
    around(OpFamily::elementwise, [&] { inner_->add(n, a, b, y); });
}
void ForwardingBackend::copy(std::size_t n, const float* src, float* dst) {
    around(OpFamily::elementwise, [&] { inner_->copy(n, src, dst); });
}
void ForwardingBackend::scale(std::size_t n, float factor, float* x) {
    around(OpFamily::elementwise, [&] { inner_->scale(n, factor, x); });
}
void ForwardingBackend::dropout_forward(std::size_t n, const DropoutConfig& config, const float* x,
                                        float* y, float* mask) {
    around(OpFamily::elementwise, [&] { inner_->dropout_forward(n, config, x, y, mask); });
}
void ForwardingBackend::dropout2d_forward(const NchwShape& s, const DropoutConfig& config,
                                          const float* x, float* y, float* mask) {
    around(OpFamily::elementwise, [&] { inner_->dropout2d_forward(s, config, x, y, mask); });
}
void ForwardingBackend::dropout_backward(std::size_t n, const float* mask, const float* dy,
                                         float* dx) {
    around(OpFamily::elementwise, [&] { inner_->dropout_backward(n, mask, dy, dx); });
}

// ---- batch normalization

void ForwardingBackend::batch_norm2d_forward_training(const BatchNorm2dShape& s, const float* x,
                                                      const float* gamma, const float* beta,
                                                      float* y, float* mean, float* var,
                                                      float* running_mean, float* running_var) {
    around(OpFamily::batch_norm, [&] {
        inner_->batch_norm2d_forward_training(s, x, gamma, beta, y, mean, var, running_mean,
                                              running_var);
    });
}
void ForwardingBackend::batch_norm2d_forward_given_stats(const BatchNorm2dShape& s, const float* x,
                                                         const float* gamma, const float* beta,
                                                         const float* mean, const float* var,
                                                         float* y) {
    around(OpFamily::batch_norm,
           [&] { inner_->batch_norm2d_forward_given_stats(s, x, gamma, beta, mean, var, y); });
}
void ForwardingBackend::batch_norm2d_backward(const BatchNorm2dShape& s, const float* x,
                                              const float* dy, const float* gamma,
                                              const float* mean, const float* var, float* dx,
                                              float* dgamma, float* dbeta) {
    around(OpFamily::batch_norm, [&] {
        inner_->batch_norm2d_backward(s, x, dy, gamma, mean, var, dx, dgamma, dbeta);
    });
}
void ForwardingBackend::batch_norm2d_relu_forward_training(
    const BatchNorm2dShape& s, const float* x, const float* gamma, const float* beta, float* y,
    float* mean, float* var, float* running_mean, float* running_var) {
    around(OpFamily::batch_norm, [&] {
        inner_->batch_norm2d_relu_forward_training(s, x, gamma, beta, y, mean, var, running_mean,
                                                   running_var);
    });
}
void ForwardingBackend::batch_norm2d_relu_backward(const BatchNorm2dShape& s, const float* x,
                                                   const float* y, const float* dy,
                                                   const float* gamma, const float* mean,
                                                   const float* var, float* dx, float* dgamma,
                                                   float* dbeta) {
    around(OpFamily::batch_norm, [&] {
        inner_->batch_norm2d_relu_backward(s, x, y, dy, gamma, mean, var, dx, dgamma, dbeta);
    });
}
void ForwardingBackend::batch_norm2d_sums(const BatchNorm2dShape& s, const float* x,
                                          const float* shift, float* sum, float* sum_sq) {
    around(OpFamily::batch_norm, [&] { inner_->batch_norm2d_sums(s, x, shift, sum, sum_sq); });
}
void ForwardingBackend::batch_norm2d_stats_from_sums(const BatchNorm2dShape& s,
                                                     std::int64_t count, const float* sum,
                                                     const float* sum_sq, const float* shift,
                                                     float* mean, float* var,
                                                     float* running_mean, float* running_var) {
    around(OpFamily::batch_norm, [&] {
        inner_->batch_norm2d_stats_from_sums(s, count, sum, sum_sq, shift, mean, var,
                                             running_mean, running_var);
    });
}
void ForwardingBackend::batch_norm2d_backward_reduce(const BatchNorm2dShape& s, const float* x,
                                                     const float* dy, const float* mean,
                                                     const float* var, float* dgamma,
                                                     float* dbeta) {
    around(OpFamily::batch_norm,
           [&] { inner_->batch_norm2d_backward_reduce(s, x, dy, mean, var, dgamma, dbeta); });
}
void ForwardingBackend::batch_norm2d_backward_elementwise(
    const BatchNorm2dShape& s, std::int64_t count, const float* x, const float* dy,
    const float* gamma, const float* mean, const float* var, const float* dgamma,
    const float* dbeta, float* dx) {
    around(OpFamily::batch_norm, [&] {
        inner_->batch_norm2d_backward_elementwise(s, count, x, dy, gamma, mean, var, dgamma,
                                                  dbeta, dx);
    });
}

// ---- linear layers

void ForwardingBackend::linear_forward(const LinearShape& s, const float* x, const float* w,
                                       const float* b, float* y) {
    around(OpFamily::linear, [&] { inner_->linear_forward(s, x, w, b, y); });
}
void ForwardingBackend::linear_backward_data(const LinearShape& s, const float* dy, const float* w,
                                             float* dx) {
    around(OpFamily::linear, [&] { inner_->linear_backward_data(s, dy, w, dx); });
}
void ForwardingBackend::linear_backward_weights(const LinearShape& s, const float* x,
                                                const float* dy, float* dw, float* db) {
    around(OpFamily::linear, [&] { inner_->linear_backward_weights(s, x, dy, dw, db); });
}

// ---- losses

Backend::LossResult ForwardingBackend::softmax_cross_entropy(int batch, int classes,
                                                             const float* logits,
                                                             const float* labels, float* dlogits,
                                                             float grad_scale) {
    return around(OpFamily::loss, [&] {
        return inner_->softmax_cross_entropy(batch, classes, logits, labels, dlogits, grad_scale);
    });
}
void ForwardingBackend::log_softmax_forward(int batch, int classes, const float* x, float* y) {
    around(OpFamily::elementwise, [&] { inner_->log_softmax_forward(batch, classes, x, y); });
}
void ForwardingBackend::log_softmax_backward(int batch, int classes, const float* y,
                                             const float* dy, float* dx) {
    around(OpFamily::elementwise,
           [&] { inner_->log_softmax_backward(batch, classes, y, dy, dx); });
}
Backend::LossResult ForwardingBackend::nll_loss(int batch, int classes, const float* log_probs,
                                                const float* labels, float* dlog_probs,
                                                float grad_scale) {
    return around(OpFamily::loss, [&] {
        return inner_->nll_loss(batch, classes, log_probs, labels, dlog_probs, grad_scale);
    });
}
void ForwardingBackend::add_loss_to_totals(LossKind kind, int batch, int classes,
                                           const float* outputs, const float* labels,
                                           float* doutputs, float grad_scale, float* totals) {
    around(OpFamily::loss, [&] {
        inner_->add_loss_to_totals(kind, batch, classes, outputs, labels, doutputs, grad_scale,
                                   totals);
    });
}
// A read of device memory by the host: a download.
Backend::LossResult ForwardingBackend::take_loss_totals(float* totals) {
    return around(OpFamily::download, [&] { return inner_->take_loss_totals(totals); });
}

// ---- update and waiting

void ForwardingBackend::sgd_update(std::size_t n, float lr, float* param, const float* grad) {
    around(OpFamily::update, [&] { inner_->sgd_update(n, lr, param, grad); });
}
void ForwardingBackend::synchronize() {
    around(OpFamily::wait, [&] { inner_->synchronize(); });
}
StepGraphAction ForwardingBackend::run_step(const StepGraphRequest& request, StepWork step) {
    return inner_->run_step(request, std::move(step));
}

}  // namespace dp
