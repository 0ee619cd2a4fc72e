#pragma once

#include <memory>

#include "backend/host_memory_backend.h"
#include "backend/precision.h"

namespace dp {

// The CPU backend. Convolution, pooling, relu, linear and log softmax run on
// oneDNN, their primitives cached per shape; the ops oneDNN has no primitive
// for (or none with the Backend's contract, or a slower one) run as OpenMP
// host loops: add, scale, SGD, dropout, the bias gradients, batch
// normalization (onednn_batch_norm.cpp says why) and the classification
// losses (backend/host/host_kernels.h). One file per op family:
// onednn_<family>.cpp.
//
// In bf16 precision, convolutions and linear layers take their float
// inputs and weights rounded to bfloat16 (a reorder into the primitive's
// layout, in the backend's scratch area) and write float32 outputs and
// gradients, so the master weights, the all-reduce and SGD stay float32;
// every other op computes in float32 as in fp32 precision.
class OneDnnBackend final : public HostMemoryBackend {
public:
    // Throws dp::Error for a precision this CPU cannot compute in (tf32;
    // bf16 without AVX512_BF16 or AMX).
    explicit OneDnnBackend(Precision precision = Precision::fp32);
    ~OneDnnBackend() override;

    std::string name() const override { return "onednn"; }

    // Whether oneDNN, as this process runs it, has bfloat16 kernels: AVX512_BF16
    // or AMX, within any ONEDNN_MAX_CPU_ISA limit (read at oneDNN's first call).
    static bool computes_bf16();
    // "oneDNN 2.6.3 (avx2)": the library this process loaded and the ISA it uses here.
    static std::string version();
    // Whether this process's oneDNN has float32 Winograd convolutions (AVX-512),
    // a candidate for 3x3 stride-1 convolutions (onednn_convolution.cpp).
    static bool has_winograd();

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

    void synchronize() override;

private:
    struct Impl;  // keeps dnnl.hpp out of every includer
    std::unique_ptr<Impl> impl_;
};

}  // namespace dp
