// CudaBackend's convolutions: cuDNN's passes (cudnn_convolution.h), and the
// bias added and its gradient summed by the backend's own kernels.

#include "backend/cuda/cuda_backend_impl.h"

namespace dp::cuda {

void CudaBackend::conv2d_forward(const Conv2dShape& s, const float* x, const float* w,
                                 const float* b, float* y) {
    if (s.batch == 0) return;
    convolution_.forward(s, x, w, y);
    if (b)  // null: a convolution feeding a BatchNorm in training (nn/conv2d.h)
        cuda::add_channel_bias(launch(), s.batch, s.out_channels,
                               std::size_t(s.out_h()) * s.out_w(), b, y);
}

void CudaBackend::conv2d_backward_data(const Conv2dShape& s, const float* dy, const float* w,
                                       float* dx) {
    if (s.batch == 0) return;
    convolution_.backward_data(s, dy, w, dx);
}

void CudaBackend::conv2d_backward_weights(const Conv2dShape& s, const float* x, const float* dy,
                                          float* dw, float* db) {
    if (s.batch == 0) {
        fill(dw, s.weight_size(), 0.f);
        if (db) fill(db, std::size_t(s.out_channels), 0.f);
        return;
    }
    convolution_.backward_filter(s, x, dy, dw);
    if (db)
        cuda::channel_sums(launch(), s.batch, s.out_channels, std::size_t(s.out_h()) * s.out_w(),
                           dy, db);
}

}  // namespace dp::cuda
