// CudaBackend's elementwise ops: relu, add, scale, SGD and dropout, each on
// its own kernel (cuda_kernels.h).

#include <string>

#include "backend/cuda/cuda_backend_impl.h"
#include "core/error.h"

namespace dp::cuda {

void CudaBackend::relu_forward(std::size_t n, const float* x, float* y) {
    cuda::relu_forward(launch(), n, x, y);
}
void CudaBackend::relu_backward(std::size_t n, const float* y, const float* dy, float* dx) {
    cuda::relu_backward(launch(), n, y, dy, dx);
}

void CudaBackend::add(std::size_t n, const float* a, const float* b, float* y) {
    cuda::add(launch(), n, a, b, y);
}
void CudaBackend::scale(std::size_t n, float factor, float* x) {
    cuda::scale(launch(), n, factor, x);
}

void CudaBackend::sgd_update(std::size_t n, float lr, float* param, const float* grad) {
    cuda::sgd_update(launch(), n, lr, param, grad);
}

// ---- dropout

void CudaBackend::dropout_forward(std::size_t n, const DropoutConfig& config, const float* x,
                                  float* y, float* mask) {
    check_dropout(config);
    cuda::dropout_forward(launch(), n, 1, config, x, y, mask);
}
void CudaBackend::dropout2d_forward(const NchwShape& s, const DropoutConfig& config,
                                    const float* x, float* y, float* mask) {
    check_dropout(config);
    const std::size_t area = std::size_t(s.h) * s.w;
    cuda::dropout_forward(launch(), s.size(), area, config, x, y, mask);
}
void CudaBackend::dropout_backward(std::size_t n, const float* mask, const float* dy, float* dx) {
    cuda::multiply(launch(), n, dy, mask, dx);
}

void CudaBackend::check_dropout(const DropoutConfig& config) {
    if (!(config.p >= 0 && config.p <= 1))
        throw Error("dropout probability " + std::to_string(config.p) + " is not in [0, 1]");
}

}  // namespace dp::cuda
