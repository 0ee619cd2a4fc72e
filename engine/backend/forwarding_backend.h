#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "backend/backend.h"

namespace dp {

// What a backend call does, as the per-op timer groups calls into rows and
// the counting backend counts them. Every Backend call is in one family.
enum class OpFamily {
    conv_forward,
    conv_backward_data,
    conv_backward_weights,
    batch_norm,
    elementwise,  // relu, add, scale, copy on the device, dropout, log softmax
    pooling,
    linear,
    loss,         // the classification losses, into the host or into device sums
    update,       // SGD (and what reuses it: weight decay, gradient accumulation)
    data,         // a batch gathered from the resident data set
    allocate,
    upload,       // host to device
    download,     // device to host: a wait for the device
    fill,
    wait,         // synchronize()
};
inline constexpr int kOpFamilies = int(OpFamily::wait) + 1;
// "conv forward", "batch norm", ...
const char* op_family_name(OpFamily family);

// A Backend that forwards every call to an inner backend, calling
// before_op(family) and after_op(family) around it. What decorators derive
// from (issue 40): the per-op timer (backend/op_profiler.h) and the counting
// backend of the zero-sync test. A call that throws skips after_op.
class ForwardingBackend : public Backend {
public:
    explicit ForwardingBackend(std::unique_ptr<Backend> inner);

    Backend& inner() { return *inner_; }

    std::string name() const override;
    bool host_reads_are_free() const override;
    std::unique_ptr<OpClock> make_op_clock(std::size_t capacity) override;

    DeviceBuffer allocate(std::size_t floats) override;
    void upload(const float* host, float* device, std::size_t floats) override;
    void download(const float* device, float* host, std::size_t floats) override;
    void upload_labels(const std::int32_t* host, float* device, std::size_t count) override;
    void fill(float* device, std::size_t floats, float value) override;
    DeviceBuffer resident_copy(const float* host, std::size_t floats) override;
    void gather_rows(const float* rows, std::size_t row_floats, const float* indices,
                     std::size_t count, float* out) override;

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
    void copy(std::size_t n, const float* src, float* dst) override;
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
    void batch_norm2d_relu_forward_training(const BatchNorm2dShape& s, const float* x,
                                            const float* gamma, const float* beta, float* y,
                                            float* mean, float* var, float* running_mean,
                                            float* running_var) override;
    void batch_norm2d_relu_backward(const BatchNorm2dShape& s, const float* x, const float* y,
                                    const float* dy, const float* gamma, const float* mean,
                                    const float* var, float* dx, float* dgamma,
                                    float* dbeta) override;

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
    void add_loss_to_totals(LossKind kind, int batch, int classes, const float* outputs,
                            const float* labels, float* doutputs, float grad_scale,
                            float* totals) override;
    LossResult take_loss_totals(float* totals) override;

    void sgd_update(std::size_t n, float lr, float* param, const float* grad) override;
    void synchronize() override;
    // A captured graph replays the inner backend's kernels: the decorator
    // sees the step's calls while it is captured (or run eagerly), not at replay.
    StepGraphAction run_step(const StepGraphRequest& request, StepWork step) override;

protected:
    virtual void before_op(OpFamily /*family*/) {}
    virtual void after_op(OpFamily /*family*/) {}

private:
    // inner's call between the two hooks, returning what it returns.
    template <typename Call>
    decltype(auto) around(OpFamily family, Call&& call);

    std::unique_ptr<Backend> inner_;
};

// Wraps the backend a replica is built on (its local index in the process)
// in a decorator, or returns it as it is: how a run adds the per-op timer and
// a test the counting backend. Called on the replica's device thread.
using BackendWrapper =
    std::function<std::unique_ptr<Backend>(std::unique_ptr<Backend> backend, int local)>;

}  // namespace dp
