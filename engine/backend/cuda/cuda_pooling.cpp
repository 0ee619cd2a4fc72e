// CudaBackend's pooling: average (with or without a fused ReLU), max and
// global average pooling, on the kernels of pooling_kernels.cu.

#include "backend/cuda/cuda_backend_impl.h"

namespace dp::cuda {

void CudaBackend::avg_pool2d_forward(const Pool2dShape& s, const float* x, float* y) {
    cuda::avg_pool2d_forward(launch(), s, x, y);
}
void CudaBackend::avg_pool2d_backward(const Pool2dShape& s, const float* dy, float* dx) {
    cuda::avg_pool2d_backward(launch(), s, dy, dx);
}
void CudaBackend::relu_avg_pool2d_forward(const Pool2dShape& s, const float* x, float* y) {
    cuda::relu_avg_pool2d_forward(launch(), s, x, y);
}
void CudaBackend::relu_avg_pool2d_backward(const Pool2dShape& s, const float* x, const float* dy,
                                           float* dx) {
    cuda::relu_avg_pool2d_backward(launch(), s, x, dy, dx);
}

std::size_t CudaBackend::max_pool2d_workspace_size(const Pool2dShape& s) {
    return cuda::max_pool2d_workspace_bytes(s);
}
void CudaBackend::max_pool2d_forward(const Pool2dShape& s, const float* x, float* y,
                                     void* workspace) {
    cuda::max_pool2d_forward(launch(), s, x, y, static_cast<std::int32_t*>(workspace));
}
void CudaBackend::max_pool2d_backward(const Pool2dShape& s, const float* dy,
                                      const void* workspace, float* dx) {
    cuda::max_pool2d_backward(launch(), s, dy, static_cast<const std::int32_t*>(workspace), dx);
}

void CudaBackend::global_avg_pool2d_forward(const NchwShape& s, const float* x, float* y) {
    cuda::global_avg_pool2d_forward(launch(), s, x, y);
}
void CudaBackend::global_avg_pool2d_backward(const NchwShape& s, const float* dy, float* dx) {
    cuda::global_avg_pool2d_backward(launch(), s, dy, dx);
}

}  // namespace dp::cuda
