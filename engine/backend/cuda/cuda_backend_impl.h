#pragma once

// CudaBackend's declaration and the state its op families share. Its
// construction, memory and stream are in cuda_backend.cpp; the ops in one
// file per op family: cuda_convolution.cpp, cuda_elementwise.cpp (relu, add,
// scale, dropout, SGD), cuda_pooling.cpp, cuda_batch_norm.cpp (ours or
// cuDNN's: cudnn_batch_norm.h),
// cuda_linear.cpp and cuda_losses.cpp. Private to engine/backend/cuda/:
// it includes the CUDA headers that cuda_backend.h keeps from its includers.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include "backend/backend.h"
#include "backend/cuda/cuda_kernels.h"
#include "backend/cuda/cuda_step_graphs.h"
#include "backend/cuda/cudnn_batch_norm.h"
#include "backend/cuda/cudnn_convolution.h"
#include "backend/cuda_backend_options.h"
#include "backend/plan_cache.h"
#include "platform/cuda/compute_stream.h"
#include "platform/cuda/device_arena.h"
#include "platform/cuda/pinned_staging.h"

namespace dp::cuda {

struct StreamDeleter {
    void operator()(cudaStream_t stream) const { cudaStreamDestroy(stream); }
};
struct CudnnDeleter {
    void operator()(cudnnHandle_t handle) const { cudnnDestroy(handle); }
};
struct CublasDeleter {
    void operator()(cublasHandle_t handle) const { cublasDestroy(handle); }
};
struct PinnedDeleter {
    void operator()(void* data) const { cudaFreeHost(data); }
};
using Stream = std::unique_ptr<CUstream_st, StreamDeleter>;
using CudnnHandle = std::unique_ptr<cudnnContext, CudnnDeleter>;
using CublasHandle = std::unique_ptr<cublasContext, CublasDeleter>;

class CudaBackend final : public Backend {
public:
    CudaBackend(int ordinal, const CudaBackendOptions& options);
    ~CudaBackend() override;

    std::string name() const override { return "cuda"; }

    // ---- memory

    DeviceBuffer allocate(std::size_t floats) override;
    void upload(const float* host, float* device, std::size_t floats) override;
    void upload_labels(const std::int32_t* host, float* device, std::size_t count) override;
    void download(const float* device, float* host, std::size_t floats) override;
    void fill(float* device, std::size_t floats, float value) override;
    void copy(std::size_t n, const float* src, float* dst) override;

    // ---- convolution

    void conv2d_forward(const Conv2dShape& s, const float* x, const float* w, const float* b,
                        float* y) override;
    void conv2d_backward_data(const Conv2dShape& s, const float* dy, const float* w,
                              float* dx) override;
    void conv2d_backward_weights(const Conv2dShape& s, const float* x, const float* dy, float* dw,
                                 float* db) override;

    // ---- activations, pooling, elementwise

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
    void sgd_update(std::size_t n, float lr, float* param, const float* grad) override;

    // ---- dropout

    void dropout_forward(std::size_t n, const DropoutConfig& config, const float* x, float* y,
                         float* mask) override;
    void dropout2d_forward(const NchwShape& s, const DropoutConfig& config, const float* x,
                           float* y, float* mask) override;
    void dropout_backward(std::size_t n, const float* mask, const float* dy, float* dx) override;

    // ---- batch normalization

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

    // ---- linear layers

    void linear_forward(const LinearShape& s, const float* x, const float* w, const float* b,
                        float* y) override;
    void linear_backward_data(const LinearShape& s, const float* dy, const float* w,
                              float* dx) override;
    void linear_backward_weights(const LinearShape& s, const float* x, const float* dy, float* dw,
                                 float* db) override;

    // ---- losses

    LossResult softmax_cross_entropy(int batch, int classes, const float* logits,
                                     const float* labels, float* dlogits,
                                     float grad_scale) override;

    void log_softmax_forward(int batch, int classes, const float* x, float* y) override;
    void log_softmax_backward(int batch, int classes, const float* y, const float* dy,
                              float* dx) override;
    LossResult nll_loss(int batch, int classes, const float* log_probs, const float* labels,
                        float* dlog_probs, float grad_scale) override;

    void synchronize() override;

    // ---- the sync-free step (cuda_step_ops.cpp, step_kernels.cu)

    std::unique_ptr<OpClock> make_op_clock(std::size_t capacity) override;
    DeviceBuffer resident_copy(const float* host, std::size_t floats) override;
    void gather_rows(const float* rows, std::size_t row_floats, const float* indices,
                     std::size_t count, float* out) override;
    void add_loss_to_totals(LossKind kind, int batch, int classes, const float* outputs,
                            const float* labels, float* doutputs, float grad_scale,
                            float* totals) override;
    LossResult take_loss_totals(float* totals) override;

    // ---- CUDA Graphs of a whole step (cuda_step_graphs.cpp)

    StepGraphAction run_step(const StepGraphRequest& request, StepWork step) override;

private:
    static int select(int ordinal);
    static Stream create_stream(int device);
    static CudnnHandle create_cudnn(int device, cudaStream_t stream);
    static CublasHandle create_cublas(int device, cudaStream_t stream);
    static std::unique_ptr<cuda::LossSums, PinnedDeleter> allocate_pinned(int device,
                                                                           std::size_t bytes);

    cuda::Launch launch() const { return {stream_.get(), device_, reduction_partials_}; }

    // host::DropoutDraw's check, with its words.
    static void check_dropout(const DropoutConfig& config);

    // ---- bf16 precision's linear layers (CudaBackendOptions::bf16)

    // A linear shape's bfloat16 copies of x, w and dy, allocated when the
    // shape is first met (null in fp32 and tf32).
    struct LinearCopies {
        std::uint16_t *x = nullptr, *w = nullptr, *dy = nullptr;
    };
    LinearCopies& linear_copies(const LinearShape& s);

    // A GEMM operand: its float values, and its bf16 copy of n elements.
    struct GemmOperand {
        const float* values;
        std::uint16_t* copy;
        std::size_t n;
    };

    // c = op(a) op(b), column-major as cuBLAS's: float32 (TF32 when the
    // handle's math mode allows), or in bf16 on a and b rounded into their
    // copies, accumulated and written in float32.
    void gemm(cublasOperation_t op_a, cublasOperation_t op_b, int m, int n, int k,
              const GemmOperand& a, int lda, const GemmOperand& b, int ldb, float* c, int ldc);

    // The sums of the last loss kernel, brought to the host and checked.
    LossResult loss_result(int classes);

    int device_;
    Stream stream_;
    cuda::DeviceArena arena_;
    CudnnHandle cudnn_;
    CublasHandle cublas_;
    cuda::PinnedStaging staging_;
    cuda::LossSums* loss_sums_;  // in the arena
    std::unique_ptr<cuda::LossSums, PinnedDeleter> host_loss_sums_;
    cuda::ChannelPartial* reduction_partials_;  // in the arena
    cuda::CudnnConvolution convolution_;
    cuda::CudnnBatchNorm cudnn_batch_norm_;  // DP_CUDA_BATCH_NORM=cudnn; else unused
    bool bf16_;
    PlanCache<LinearShape, LinearCopies> linear_copies_;
    cuda::ThreadComputeStreamRegistration stream_registration_;
    cuda::CudaStepGraphs step_graphs_;
};

}  // namespace dp::cuda
