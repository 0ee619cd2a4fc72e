// OneDnnBackend's batch normalization: host loops (backend/host/host_kernels.h),
// the channels in parallel. oneDNN 2.6's primitives on the NCHW layout
// (ncsp_bnorm) ran 5-6x slower than these vectorized loops on ResNet-18's
// shapes, and its own statistics drift on channels whose variance is tiny
// next to their mean (1% gradient errors in ResNet-18's golden test).

#include "backend/host/host_kernels.h"
#include "backend/onednn/onednn_backend.h"

namespace dp {

void OneDnnBackend::batch_norm2d_forward_training(const BatchNorm2dShape& s, const float* x,
                                                  const float* gamma, const float* beta,
                                                  float* y, float* mean, float* var,
                                                  float* running_mean, float* running_var) {
    host::batch_norm2d_statistics(s, x, mean, var);
    batch_norm2d_forward_given_stats(s, x, gamma, beta, mean, var, y);
    host::update_running_stats(s, s.count_per_channel(), mean, var, running_mean, running_var);
}

void OneDnnBackend::batch_norm2d_forward_given_stats(const BatchNorm2dShape& s, const float* x,
                                                     const float* gamma, const float* beta,
                                                     const float* mean, const float* var,
                                                     float* y) {
    host::batch_norm2d_normalize(s, x, gamma, beta, mean, var, y);
}

// The training backward is synchronized batch normalization's two ops on
// one replica: its reductions are the whole batch's.
void OneDnnBackend::batch_norm2d_backward(const BatchNorm2dShape& s, const float* x,
                                          const float* dy, const float* gamma, const float* mean,
                                          const float* var, float* dx, float* dgamma,
                                          float* dbeta) {
    host::batch_norm2d_backward_reduce(s, x, dy, mean, var, dgamma, dbeta);
    host::batch_norm2d_backward_elementwise(s, s.count_per_channel(), x, dy, gamma, mean, var,
                                            dgamma, dbeta, dx);
}

// The synchronized batch normalization ops have no oneDNN primitive (its
// backward takes only local reductions).
void OneDnnBackend::batch_norm2d_sums(const BatchNorm2dShape& s, const float* x,
                                      const float* shift, float* sum, float* sum_sq) {
    host::batch_norm2d_sums(s, x, shift, sum, sum_sq);
}

void OneDnnBackend::batch_norm2d_stats_from_sums(const BatchNorm2dShape& s, std::int64_t count,
                                                 const float* sum, const float* sum_sq,
                                                 const float* shift, float* mean, float* var,
                                                 float* running_mean, float* running_var) {
    host::batch_norm2d_stats_from_sums(s, count, sum, sum_sq, shift, mean, var, running_mean,
                                       running_var);
}

void OneDnnBackend::batch_norm2d_backward_reduce(const BatchNorm2dShape& s, const float* x,
                                                 const float* dy, const float* mean,
                                                 const float* var, float* dgamma, float* dbeta) {
    host::batch_norm2d_backward_reduce(s, x, dy, mean, var, dgamma, dbeta);
}

void OneDnnBackend::batch_norm2d_backward_elementwise(const BatchNorm2dShape& s,
                                                      std::int64_t count, const float* x,
                                                      const float* dy, const float* gamma,
                                                      const float* mean, const float* var,
                                                      const float* dgamma, const float* dbeta,
                                                      float* dx) {
    host::batch_norm2d_backward_elementwise(s, count, x, dy, gamma, mean, var, dgamma, dbeta, dx);
}

}  // namespace dp
