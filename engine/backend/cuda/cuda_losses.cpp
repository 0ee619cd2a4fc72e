// CudaBackend's log softmax and classification losses, on the kernels of
// loss_kernels.cu. The losses' sums come back to the host, so they wait for
// the stream.

#include <string>

#include "backend/cuda/cuda_backend_impl.h"
#include "core/error.h"
#include "platform/cuda/cuda_check.h"

namespace dp::cuda {

Backend::LossResult CudaBackend::softmax_cross_entropy(int batch, int classes,
                                                       const float* logits, const float* labels,
                                                       float* dlogits, float grad_scale) {
    cuda::softmax_cross_entropy(launch(), batch, classes, logits, labels, dlogits, grad_scale,
                                loss_sums_);
    return loss_result(classes);
}

void CudaBackend::log_softmax_forward(int batch, int classes, const float* x, float* y) {
    cuda::log_softmax_forward(launch(), batch, classes, x, y);
}
void CudaBackend::log_softmax_backward(int batch, int classes, const float* y, const float* dy,
                                       float* dx) {
    cuda::log_softmax_backward(launch(), batch, classes, y, dy, dx);
}
Backend::LossResult CudaBackend::nll_loss(int batch, int classes, const float* log_probs,
                                          const float* labels, float* dlog_probs,
                                          float grad_scale) {
    cuda::nll_loss(launch(), batch, classes, log_probs, labels, dlog_probs, grad_scale,
                   loss_sums_);
    return loss_result(classes);
}

Backend::LossResult CudaBackend::loss_result(int classes) {
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

}  // namespace dp::cuda
