#include "backend/cuda/cudnn_batch_norm.h"

#include "platform/cuda/cuda_check.h"

// cuDNN 9 marks its legacy BatchNorm API deprecated in favour of the graph
// API, yet keeps and supports it, as it does the convolution calls
// (cudnn_convolution.cpp); only this file uses it.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace dp::cuda {

struct CudnnBatchNorm::Plan {
    cudnnTensorDescriptor_t x = nullptr;   // x, y, dx and dy: NCHW float
    cudnnTensorDescriptor_t bn = nullptr;  // gamma, beta, statistics: 1 x C x 1 x 1
    float* inv_std = nullptr;              // C floats in the arena

    Plan() = default;
    Plan(const Plan&) = delete;
    Plan& operator=(const Plan&) = delete;
    ~Plan() {
        if (bn) cudnnDestroyTensorDescriptor(bn);
        if (x) cudnnDestroyTensorDescriptor(x);
    }
};

namespace {

cudnnBatchNormMode_t training_mode(CudaBatchNorm choice) {
    return choice == CudaBatchNorm::cudnn_persistent ? CUDNN_BATCHNORM_SPATIAL_PERSISTENT
                                                     : CUDNN_BATCHNORM_SPATIAL;
}

const float kOne = 1.f, kZero = 0.f;

}  // namespace

CudnnBatchNorm::CudnnBatchNorm(int device, cudnnHandle_t handle, CudaBatchNorm choice,
                               std::function<void*(std::size_t bytes)> allocate)
    : device_(device), handle_(handle), choice_(choice), allocate_(std::move(allocate)) {}

CudnnBatchNorm::~CudnnBatchNorm() = default;

bool CudnnBatchNorm::runs(const BatchNorm2dShape& s) const {
    return choice_ != CudaBatchNorm::own && s.size() > 0 && s.count_per_channel() > 1;
}

CudnnBatchNorm::Plan& CudnnBatchNorm::plan(const BatchNorm2dShape& s) {
    return *plans_.get(s, [this](const BatchNorm2dShape& shape) {
        auto p = std::make_unique<Plan>();
        DP_CUDA_CHECK(device_, cudnnCreateTensorDescriptor(&p->x));
        DP_CUDA_CHECK(device_, cudnnCreateTensorDescriptor(&p->bn));
        DP_CUDA_CHECK(device_, cudnnSetTensor4dDescriptor(p->x, CUDNN_TENSOR_NCHW,
                                                          CUDNN_DATA_FLOAT, shape.batch,
                                                          shape.channels, shape.h, shape.w));
        DP_CUDA_CHECK(device_, cudnnDeriveBNTensorDescriptor(p->bn, p->x, training_mode(choice_)));
        p->inv_std = static_cast<float*>(allocate_(std::size_t(shape.channels) * sizeof(float)));
        return p;
    });
}

void CudnnBatchNorm::forward_training(const Launch& launch, const BatchNorm2dShape& s,
                                      const float* x, const float* gamma, const float* beta,
                                      float* y, float* mean, float* var, float* running_mean,
                                      float* running_var) {
    Plan& p = plan(s);
    DP_CUDA_CHECK(device_, cudnnBatchNormalizationForwardTraining(
                               handle_, training_mode(choice_), &kOne, &kZero, p.x, x, p.x, y,
                               p.bn, gamma, beta, double(s.momentum), running_mean, running_var,
                               double(s.eps), mean, p.inv_std));
    inverse_std_to_variance(launch, s.channels, s.eps, p.inv_std, var);
}

void CudnnBatchNorm::forward_given_stats(const BatchNorm2dShape& s, const float* x,
                                         const float* gamma, const float* beta,
                                         const float* mean, const float* var, float* y) {
    Plan& p = plan(s);
    // Inference takes SPATIAL only; its bn descriptor is the same 1 x C x 1 x 1.
    DP_CUDA_CHECK(device_, cudnnBatchNormalizationForwardInference(
                               handle_, CUDNN_BATCHNORM_SPATIAL, &kOne, &kZero, p.x, x, p.x, y,
                               p.bn, gamma, beta, mean, var, double(s.eps)));
}

void CudnnBatchNorm::backward(const Launch& launch, const BatchNorm2dShape& s, const float* x,
                              const float* dy, const float* gamma, const float* mean,
                              const float* var, float* dx, float* dgamma, float* dbeta) {
    Plan& p = plan(s);
    variance_to_inverse_std(launch, s.channels, s.eps, var, p.inv_std);
    DP_CUDA_CHECK(device_, cudnnBatchNormalizationBackward(
                               handle_, training_mode(choice_), &kOne, &kZero, &kOne, &kZero, p.x,
                               x, p.x, dy, p.x, dx, p.bn, gamma, dgamma, dbeta, double(s.eps),
                               mean, p.inv_std));
}

}  // namespace dp::cuda
