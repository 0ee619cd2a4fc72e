#include "backend/cuda/cuda_backend.h"

#include <algorithm>
#include <cstring>
#include <string>

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include "platform/cuda/compute_stream.h"
#include "platform/cuda/cuda_check.h"
#include "backend/cuda/cuda_kernels.h"
#include "backend/cuda/cudnn_convolution.h"
#include "platform/cuda/device_arena.h"
#include "platform/cuda/driver_allocations.h"
#include "platform/cuda/pinned_staging.h"
#include "backend/plan_cache.h"
#include "core/error.h"

namespace dp {
namespace {

// Sizes of what the backend sets aside at start.
constexpr std::size_t kArenaChunkBytes = std::size_t(256) << 20;
constexpr std::size_t kCublasWorkspaceBytes = std::size_t(32) << 20;  // NVIDIA's advice for Hopper
constexpr std::size_t kStagingChunkFloats = std::size_t(1) << 20;     // 4 MiB per pinned buffer

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
    CudaBackend(int ordinal, const CudaBackendOptions& options)
        : device_(select(ordinal)),
          stream_(create_stream(device_)),
          arena_(device_, kArenaChunkBytes),
          cudnn_(create_cudnn(device_, stream_.get())),
          cublas_(create_cublas(device_, stream_.get())),
          staging_(device_, kStagingChunkFloats),
          loss_sums_(static_cast<cuda::LossSums*>(arena_.allocate(sizeof(cuda::LossSums)))),
          host_loss_sums_(allocate_pinned(device_, sizeof(cuda::LossSums))),
          convolution_(device_, cudnn_.get(), arena_.allocate(options.workspace_bytes), options,
                       [this](std::size_t bytes) { return arena_.allocate(bytes); }),
          bf16_(options.bf16),
          stream_registration_(stream_.get()) {
        DP_CUDA_CHECK(device_, cublasSetWorkspace(cublas_.get(),
                                                  arena_.allocate(kCublasWorkspaceBytes),
                                                  kCublasWorkspaceBytes));
        DP_CUDA_CHECK(device_, cublasSetMathMode(cublas_.get(), options.allow_tf32
                                                                    ? CUBLAS_TF32_TENSOR_OP_MATH
                                                                    : CUBLAS_DEFAULT_MATH));
    }

    ~CudaBackend() override {
        cudaStreamSynchronize(stream_.get());  // nothing may still run on what is freed below
    }

    std::string name() const override { return "cuda"; }

    // ---- memory

    DeviceBuffer allocate(std::size_t floats) override {
        const std::size_t bytes = std::max<std::size_t>(1, floats) * sizeof(float);
        auto* data = static_cast<float*>(arena_.allocate(bytes));
        DP_CUDA_CHECK(device_, cudaMemsetAsync(data, 0, bytes, stream_.get()));
        // The arena owns the memory and releases it with the backend.
        return DeviceBuffer(data, [](float*) {});
    }

    void upload(const float* host, float* device, std::size_t floats) override {
        staging_.upload(stream_.get(), device, floats,
                        [host](float* staging, std::size_t first, std::size_t n) {
                            std::memcpy(staging, host + first, n * sizeof(float));
                        });
    }

    void upload_labels(const std::int32_t* host, float* device, std::size_t count) override {
        staging_.upload(stream_.get(), device, count,
                        [host](float* staging, std::size_t first, std::size_t n) {
                            std::transform(host + first, host + first + n, staging,
                                           [](std::int32_t label) { return float(label); });
                        });
    }

    void download(const float* device, float* host, std::size_t floats) override {
        if (!floats) return;
        DP_CUDA_CHECK(device_, cudaMemcpyAsync(host, device, floats * sizeof(float),
                                               cudaMemcpyDeviceToHost, stream_.get()));
        synchronize();
    }

    void fill(float* device, std::size_t floats, float value) override {
        cuda::fill(launch(), floats, value, device);
    }

    void copy(std::size_t n, const float* src, float* dst) override {
        if (!n) return;
        DP_CUDA_CHECK(device_, cudaMemcpyAsync(dst, src, n * sizeof(float),
                                               cudaMemcpyDeviceToDevice, stream_.get()));
    }

    // ---- convolution

    void conv2d_forward(const Conv2dShape& s, const float* x, const float* w, const float* b,
                        float* y) override {
        if (s.batch == 0) return;
        convolution_.forward(s, x, w, y);
        cuda::add_channel_bias(launch(), s.batch, s.out_channels,
                               std::size_t(s.out_h()) * s.out_w(), b, y);
    }

    void conv2d_backward_data(const Conv2dShape& s, const float* dy, const float* w,
                              float* dx) override {
        if (s.batch == 0) return;
        convolution_.backward_data(s, dy, w, dx);
    }

    void conv2d_backward_weights(const Conv2dShape& s, const float* x, const float* dy, float* dw,
                                 float* db) override {
        if (s.batch == 0) {
            fill(dw, s.weight_size(), 0.f);
            fill(db, std::size_t(s.out_channels), 0.f);
            return;
        }
        convolution_.backward_filter(s, x, dy, dw);
        cuda::channel_sums(launch(), s.batch, s.out_channels, std::size_t(s.out_h()) * s.out_w(),
                           dy, db);
    }

    // ---- activations, pooling, elementwise

    void relu_forward(std::size_t n, const float* x, float* y) override {
        cuda::relu_forward(launch(), n, x, y);
    }
    void relu_backward(std::size_t n, const float* y, const float* dy, float* dx) override {
        cuda::relu_backward(launch(), n, y, dy, dx);
    }

    void avg_pool2d_forward(const Pool2dShape& s, const float* x, float* y) override {
        cuda::avg_pool2d_forward(launch(), s, x, y);
    }
    void avg_pool2d_backward(const Pool2dShape& s, const float* dy, float* dx) override {
        cuda::avg_pool2d_backward(launch(), s, dy, dx);
    }
    void relu_avg_pool2d_forward(const Pool2dShape& s, const float* x, float* y) override {
        cuda::relu_avg_pool2d_forward(launch(), s, x, y);
    }
    void relu_avg_pool2d_backward(const Pool2dShape& s, const float* x, const float* dy,
                                  float* dx) override {
        cuda::relu_avg_pool2d_backward(launch(), s, x, dy, dx);
    }

    std::size_t max_pool2d_workspace_size(const Pool2dShape& s) override {
        return cuda::max_pool2d_workspace_bytes(s);
    }
    void max_pool2d_forward(const Pool2dShape& s, const float* x, float* y,
                            void* workspace) override {
        cuda::max_pool2d_forward(launch(), s, x, y, static_cast<std::int32_t*>(workspace));
    }
    void max_pool2d_backward(const Pool2dShape& s, const float* dy, const void* workspace,
                             float* dx) override {
        cuda::max_pool2d_backward(launch(), s, dy, static_cast<const std::int32_t*>(workspace),
                                  dx);
    }

    void global_avg_pool2d_forward(const NchwShape& s, const float* x, float* y) override {
        cuda::global_avg_pool2d_forward(launch(), s, x, y);
    }
    void global_avg_pool2d_backward(const NchwShape& s, const float* dy, float* dx) override {
        cuda::global_avg_pool2d_backward(launch(), s, dy, dx);
    }

    void add(std::size_t n, const float* a, const float* b, float* y) override {
        cuda::add(launch(), n, a, b, y);
    }
    void scale(std::size_t n, float factor, float* x) override {
        cuda::scale(launch(), n, factor, x);
    }

    // ---- dropout

    void dropout_forward(std::size_t n, const DropoutConfig& config, const float* x, float* y,
                         float* mask) override {
        check_dropout(config);
        cuda::dropout_forward(launch(), n, 1, config, x, y, mask);
    }
    void dropout2d_forward(const NchwShape& s, const DropoutConfig& config, const float* x,
                           float* y, float* mask) override {
        check_dropout(config);
        const std::size_t area = std::size_t(s.h) * s.w;
        cuda::dropout_forward(launch(), s.size(), area, config, x, y, mask);
    }
    void dropout_backward(std::size_t n, const float* mask, const float* dy, float* dx) override {
        cuda::multiply(launch(), n, dy, mask, dx);
    }

    // ---- batch normalization

    void batch_norm2d_forward_training(const BatchNorm2dShape& s, const float* x,
                                       const float* gamma, const float* beta, float* y,
                                       float* mean, float* var, float* running_mean,
                                       float* running_var) override {
        cuda::batch_norm2d_training_stats(launch(), s, x, mean, var, running_mean, running_var);
        cuda::batch_norm2d_normalize(launch(), s, x, gamma, beta, mean, var, y);
    }
    void batch_norm2d_forward_given_stats(const BatchNorm2dShape& s, const float* x,
                                          const float* gamma, const float* beta,
                                          const float* mean, const float* var,
                                          float* y) override {
        cuda::batch_norm2d_normalize(launch(), s, x, gamma, beta, mean, var, y);
    }
    void batch_norm2d_backward(const BatchNorm2dShape& s, const float* x, const float* dy,
                               const float* gamma, const float* mean, const float* var, float* dx,
                               float* dgamma, float* dbeta) override {
        cuda::batch_norm2d_backward_reduce(launch(), s, x, dy, mean, var, dgamma, dbeta);
        cuda::batch_norm2d_backward_elementwise(launch(), s, s.count_per_channel(), x, dy, gamma,
                                                mean, var, dgamma, dbeta, dx);
    }
    void batch_norm2d_sums(const BatchNorm2dShape& s, const float* x, const float* shift,
                           float* sum, float* sum_sq) override {
        cuda::batch_norm2d_sums(launch(), s, x, shift, sum, sum_sq);
    }
    void batch_norm2d_stats_from_sums(const BatchNorm2dShape& s, std::int64_t count,
                                      const float* sum, const float* sum_sq, const float* shift,
                                      float* mean, float* var, float* running_mean,
                                      float* running_var) override {
        cuda::batch_norm2d_stats_from_sums(launch(), s, count, sum, sum_sq, shift, mean, var,
                                           running_mean, running_var);
    }
    void batch_norm2d_backward_reduce(const BatchNorm2dShape& s, const float* x, const float* dy,
                                      const float* mean, const float* var, float* dgamma,
                                      float* dbeta) override {
        cuda::batch_norm2d_backward_reduce(launch(), s, x, dy, mean, var, dgamma, dbeta);
    }
    void batch_norm2d_backward_elementwise(const BatchNorm2dShape& s, std::int64_t count,
                                           const float* x, const float* dy, const float* gamma,
                                           const float* mean, const float* var,
                                           const float* dgamma, const float* dbeta,
                                           float* dx) override {
        cuda::batch_norm2d_backward_elementwise(launch(), s, count, x, dy, gamma, mean, var,
                                                dgamma, dbeta, dx);
    }

    // ---- linear layers. cuBLAS is column-major: a row-major [rows, cols]
    // matrix is its transpose, so y = x w^T is computed as y^T = w x^T.

    void linear_forward(const LinearShape& s, const float* x, const float* w, const float* b,
                        float* y) override {
        if (s.batch == 0) return;
        LinearCopies& copies = linear_copies(s);
        gemm(CUBLAS_OP_T, CUBLAS_OP_N, s.out_features, s.batch, s.in_features,
             {w, copies.w, s.weight_size()}, s.in_features, {x, copies.x, s.input_size()},
             s.in_features, y, s.out_features);
        cuda::add_channel_bias(launch(), s.batch, s.out_features, 1, b, y);
    }

    // dx = dy w, as dx^T = w^T dy^T
    void linear_backward_data(const LinearShape& s, const float* dy, const float* w,
                              float* dx) override {
        if (s.batch == 0) return;
        LinearCopies& copies = linear_copies(s);
        gemm(CUBLAS_OP_N, CUBLAS_OP_N, s.in_features, s.batch, s.out_features,
             {w, copies.w, s.weight_size()}, s.in_features, {dy, copies.dy, s.output_size()},
             s.out_features, dx, s.in_features);
    }

    // dw = dy^T x, as dw^T = x^T dy; db = dy summed over the batch
    void linear_backward_weights(const LinearShape& s, const float* x, const float* dy, float* dw,
                                 float* db) override {
        if (s.batch == 0) {
            fill(dw, s.weight_size(), 0.f);
            fill(db, std::size_t(s.out_features), 0.f);
            return;
        }
        LinearCopies& copies = linear_copies(s);
        gemm(CUBLAS_OP_N, CUBLAS_OP_T, s.in_features, s.out_features, s.batch,
             {x, copies.x, s.input_size()}, s.in_features, {dy, copies.dy, s.output_size()},
             s.out_features, dw, s.in_features);
        cuda::channel_sums(launch(), s.batch, s.out_features, 1, dy, db);
    }

    // ---- losses: their sums come back to the host, so they wait for the stream.

    LossResult softmax_cross_entropy(int batch, int classes, const float* logits,
                                     const float* labels, float* dlogits,
                                     float grad_scale) override {
        cuda::softmax_cross_entropy(launch(), batch, classes, logits, labels, dlogits, grad_scale,
                                    loss_sums_);
        return loss_result(classes);
    }

    void log_softmax_forward(int batch, int classes, const float* x, float* y) override {
        cuda::log_softmax_forward(launch(), batch, classes, x, y);
    }
    void log_softmax_backward(int batch, int classes, const float* y, const float* dy,
                              float* dx) override {
        cuda::log_softmax_backward(launch(), batch, classes, y, dy, dx);
    }
    LossResult nll_loss(int batch, int classes, const float* log_probs, const float* labels,
                        float* dlog_probs, float grad_scale) override {
        cuda::nll_loss(launch(), batch, classes, log_probs, labels, dlog_probs, grad_scale,
                       loss_sums_);
        return loss_result(classes);
    }

    void sgd_update(std::size_t n, float lr, float* param, const float* grad) override {
        cuda::sgd_update(launch(), n, lr, param, grad);
    }

    void synchronize() override {
        DP_CUDA_CHECK(device_, cudaStreamSynchronize(stream_.get()));
    }

private:
    static int select(int ordinal) {
        cuda::set_device(ordinal);
        return ordinal;
    }
    static Stream create_stream(int device) {
        cudaStream_t stream = nullptr;
        DP_CUDA_CHECK(device, cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        return Stream(stream);
    }
    static CudnnHandle create_cudnn(int device, cudaStream_t stream) {
        cudnnHandle_t handle = nullptr;
        DP_CUDA_CHECK(device, cudnnCreate(&handle));
        CudnnHandle owned(handle);
        DP_CUDA_CHECK(device, cudnnSetStream(handle, stream));
        return owned;
    }
    static CublasHandle create_cublas(int device, cudaStream_t stream) {
        cublasHandle_t handle = nullptr;
        DP_CUDA_CHECK(device, cublasCreate(&handle));
        CublasHandle owned(handle);
        DP_CUDA_CHECK(device, cublasSetStream(handle, stream));
        return owned;
    }
    static std::unique_ptr<cuda::LossSums, PinnedDeleter> allocate_pinned(int device,
                                                                           std::size_t bytes) {
        void* data = nullptr;
        DP_CUDA_CHECK(device, cudaMallocHost(&data, bytes));
        cuda::count_driver_allocation();
        return std::unique_ptr<cuda::LossSums, PinnedDeleter>(static_cast<cuda::LossSums*>(data));
    }

    cuda::Launch launch() const { return {stream_.get(), device_}; }

    // host::DropoutDraw's check, with its words.
    static void check_dropout(const DropoutConfig& config) {
        if (!(config.p >= 0 && config.p <= 1))
            throw Error("dropout probability " + std::to_string(config.p) + " is not in [0, 1]");
    }

    // ---- bf16 precision's linear layers (CudaBackendOptions::bf16)

    // A linear shape's bfloat16 copies of x, w and dy, allocated when the
    // shape is first met (null in fp32 and tf32).
    struct LinearCopies {
        std::uint16_t *x = nullptr, *w = nullptr, *dy = nullptr;
    };
    LinearCopies& linear_copies(const LinearShape& s) {
        return linear_copies_.get(s, [this](const LinearShape& shape) {
            LinearCopies copies;
            if (!bf16_) return copies;
            const auto copy = [this](std::size_t n) {
                return static_cast<std::uint16_t*>(arena_.allocate(n * sizeof(std::uint16_t)));
            };
            copies.x = copy(shape.input_size());
            copies.w = copy(shape.weight_size());
            copies.dy = copy(shape.output_size());
            return copies;
        });
    }

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
              const GemmOperand& a, int lda, const GemmOperand& b, int ldb, float* c, int ldc) {
        const float one = 1, zero = 0;
        if (!bf16_) {
            DP_CUDA_CHECK(device_, cublasSgemm(cublas_.get(), op_a, op_b, m, n, k, &one, a.values,
                                               lda, b.values, ldb, &zero, c, ldc));
            return;
        }
        cuda::round_to_bf16(launch(), a.n, a.values, a.copy);
        cuda::round_to_bf16(launch(), b.n, b.values, b.copy);
        DP_CUDA_CHECK(device_, cublasGemmEx(cublas_.get(), op_a, op_b, m, n, k, &one, a.copy,
                                            CUDA_R_16BF, lda, b.copy, CUDA_R_16BF, ldb, &zero, c,
                                            CUDA_R_32F, ldc, CUBLAS_COMPUTE_32F,
                                            CUBLAS_GEMM_DEFAULT));
    }

    LossResult loss_result(int classes) {
        DP_CUDA_CHECK(device_, cudaMemcpyAsync(host_loss_sums_.get(), loss_sums_,
                                               sizeof(cuda::LossSums), cudaMemcpyDeviceToHost,
                                               stream_.get()));
        synchronize();
        const cuda::LossSums& sums = *host_loss_sums_;
        if (sums.bad_row >= 0)
            throw Error("label " + std::to_string(sums.bad_label) + " of row " +
                        std::to_string(sums.bad_row) + " is not a class index below " +
                        std::to_string(classes));
        return {sums.loss_sum, std::int64_t(sums.correct)};
    }

    int device_;
    Stream stream_;
    cuda::DeviceArena arena_;
    CudnnHandle cudnn_;
    CublasHandle cublas_;
    cuda::PinnedStaging staging_;
    cuda::LossSums* loss_sums_;  // in the arena
    std::unique_ptr<cuda::LossSums, PinnedDeleter> host_loss_sums_;
    cuda::CudnnConvolution convolution_;
    bool bf16_;
    PlanCache<LinearShape, LinearCopies> linear_copies_;
    cuda::ThreadComputeStreamRegistration stream_registration_;
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend(int ordinal, const CudaBackendOptions& options) {
    return std::make_unique<CudaBackend>(ordinal, options);
}

}  // namespace dp
