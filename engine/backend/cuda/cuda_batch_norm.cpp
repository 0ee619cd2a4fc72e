// CudaBackend's batch normalization, on the kernels of batch_norm_kernels.cu,
// or cuDNN's for the whole-layer ops when DP_CUDA_BATCH_NORM asks
// (cudnn_batch_norm.h).

#include "backend/cuda/cuda_backend_impl.h"

namespace dp::cuda {

void CudaBackend::batch_norm2d_forward_training(const BatchNorm2dShape& s, const float* x,
                                                const float* gamma, const float* beta, float* y,
                                                float* mean, float* var, float* running_mean,
                                                float* running_var) {
    if (cudnn_batch_norm_.runs(s))
        return cudnn_batch_norm_.forward_training(launch(), s, x, gamma, beta, y, mean, var,
                                                  running_mean, running_var);
    cuda::batch_norm2d_training_stats(launch(), s, x, mean, var, running_mean, running_var);
    cuda::batch_norm2d_normalize(launch(), s, x, gamma, beta, mean, var, y);
}
void CudaBackend::batch_norm2d_forward_given_stats(const BatchNorm2dShape& s, const float* x,
                                                   const float* gamma, const float* beta,
                                                   const float* mean, const float* var,
                                                   float* y) {
    if (cudnn_batch_norm_.runs(s))
        return cudnn_batch_norm_.forward_given_stats(s, x, gamma, beta, mean, var, y);
    cuda::batch_norm2d_normalize(launch(), s, x, gamma, beta, mean, var, y);
}
void CudaBackend::batch_norm2d_backward(const BatchNorm2dShape& s, const float* x,
                                        const float* dy, const float* gamma, const float* mean,
                                        const float* var, float* dx, float* dgamma,
                                        float* dbeta) {
    if (cudnn_batch_norm_.runs(s))
        return cudnn_batch_norm_.backward(launch(), s, x, dy, gamma, mean, var, dx, dgamma, dbeta);
    cuda::batch_norm2d_backward_reduce(launch(), s, x, dy, mean, var, dgamma, dbeta);
    cuda::batch_norm2d_backward_elementwise(launch(), s, s.count_per_channel(), x, dy, gamma,
                                            mean, var, dgamma, dbeta, dx);
}

// The ReLU fused into both passes of our kernels; with cuDNN's BatchNorm,
// the two ops as Backend's defaults run them.
void CudaBackend::batch_norm2d_relu_forward_training(const BatchNorm2dShape& s, const float* x,
                                                     const float* gamma, const float* beta,
                                                     float* y, float* mean, float* var,
                                                     float* running_mean, float* running_var) {
    if (cudnn_batch_norm_.runs(s))
        return Backend::batch_norm2d_relu_forward_training(s, x, gamma, beta, y, mean, var,
                                                           running_mean, running_var);
    cuda::batch_norm2d_training_stats(launch(), s, x, mean, var, running_mean, running_var);
    cuda::batch_norm2d_normalize(launch(), s, x, gamma, beta, mean, var, y, /*relu=*/true);
}
void CudaBackend::batch_norm2d_relu_backward(const BatchNorm2dShape& s, const float* x,
                                             const float* y, const float* dy, const float* gamma,
                                             const float* mean, const float* var, float* dx,
                                             float* dgamma, float* dbeta) {
    if (cudnn_batch_norm_.runs(s))
        return Backend::batch_norm2d_relu_backward(s, x, y, dy, gamma, mean, var, dx, dgamma,
                                                   dbeta);
    cuda::batch_norm2d_backward_reduce(launch(), s, x, dy, mean, var, dgamma, dbeta, y);
    cuda::batch_norm2d_backward_elementwise(launch(), s, s.count_per_channel(), x, dy, gamma,
                                            mean, var, dgamma, dbeta, dx, y);
}

void CudaBackend::batch_norm2d_sums(const BatchNorm2dShape& s, const float* x, const float* shift,
                                    float* sum, float* sum_sq) {
    cuda::batch_norm2d_sums(launch(), s, x, shift, sum, sum_sq);
}
void CudaBackend::batch_norm2d_stats_from_sums(const BatchNorm2dShape& s, std::int64_t count,
                                               const float* sum, const float* sum_sq,
                                               const float* shift, float* mean, float* var,
                                               float* running_mean, float* running_var) {
    cuda::batch_norm2d_stats_from_sums(launch(), s, count, sum, sum_sq, shift, mean, var,
                                       running_mean, running_var);
}
void CudaBackend::batch_norm2d_backward_reduce(const BatchNorm2dShape& s, const float* x,
                                               const float* dy, const float* mean,
                                               const float* var, float* dgamma, float* dbeta) {
    cuda::batch_norm2d_backward_reduce(launch(), s, x, dy, mean, var, dgamma, dbeta);
}
void CudaBackend::batch_norm2d_backward_elementwise(const BatchNorm2dShape& s, std::int64_t count,
                                                    const float* x, const float* dy,
                                                    const float* gamma, const float* mean,
                                                    const float* var, const float* dgamma,
                                                    const float* dbeta, float* dx) {
    cuda::batch_norm2d_backward_elementwise(launch(), s, count, x, dy, gamma, mean, var, dgamma,
                                            dbeta, dx);
}

}  // namespace dp::cuda
