#include "backend/reference/reference_backend.h"

#include "backend/reference/reference_ops.h"

#include <algorithm>
#include <cstring>

namespace dp {

std::string ReferenceBackend::name() const { return "reference"; }

// Zero-initialised, so a buffer never holds stale values.
DeviceBuffer ReferenceBackend::allocate(std::size_t floats) {
    return DeviceBuffer(new float[floats](), [](float* p) { delete[] p; });
}

void ReferenceBackend::upload(const float* host, float* device, std::size_t floats) {
    std::memcpy(device, host, floats * sizeof(float));
}

void ReferenceBackend::download(const float* device, float* host, std::size_t floats) {
    std::memcpy(host, device, floats * sizeof(float));
}

void ReferenceBackend::upload_labels(const std::int32_t* host, float* device, std::size_t count) {
    std::transform(host, host + count, device, [](std::int32_t label) { return float(label); });
}

void ReferenceBackend::fill(float* device, std::size_t floats, float value) {
    std::fill_n(device, floats, value);
}

void ReferenceBackend::conv2d_forward(const Conv2dShape& s, const float* x, const float* w,
                                      const float* b, float* y) {
    reference::conv2d_forward(s, x, w, b, y);
}

void ReferenceBackend::conv2d_backward_data(const Conv2dShape& s, const float* dy, const float* w,
                                            float* dx) {
    reference::conv2d_backward_data(s, dy, w, dx);
}

void ReferenceBackend::conv2d_backward_weights(const Conv2dShape& s, const float* x,
                                               const float* dy, float* dw, float* db) {
    reference::conv2d_backward_weights(s, x, dy, dw, db);
}

void ReferenceBackend::relu_forward(std::size_t n, const float* x, float* y) {
    reference::relu_forward(n, x, y);
}

void ReferenceBackend::relu_backward(std::size_t n, const float* y, const float* dy, float* dx) {
    reference::relu_backward(n, y, dy, dx);
}

void ReferenceBackend::avg_pool2d_forward(const Pool2dShape& s, const float* x, float* y) {
    reference::avg_pool2d_forward(s, x, y);
}

void ReferenceBackend::avg_pool2d_backward(const Pool2dShape& s, const float* dy, float* dx) {
    reference::avg_pool2d_backward(s, dy, dx);
}

void ReferenceBackend::linear_forward(const LinearShape& s, const float* x, const float* w,
                                      const float* b, float* y) {
    reference::linear_forward(s, x, w, b, y);
}

void ReferenceBackend::linear_backward_data(const LinearShape& s, const float* dy, const float* w,
                                            float* dx) {
    reference::linear_backward_data(s, dy, w, dx);
}

void ReferenceBackend::linear_backward_weights(const LinearShape& s, const float* x,
                                               const float* dy, float* dw, float* db) {
    reference::linear_backward_weights(s, x, dy, dw, db);
}

Backend::LossResult ReferenceBackend::softmax_cross_entropy(int batch, int classes,
                                                            const float* logits,
                                                            const float* labels, float* dlogits,
                                                            float grad_scale) {
    return reference::softmax_cross_entropy(batch, classes, logits, labels, dlogits, grad_scale);
}

void ReferenceBackend::sgd_update(std::size_t n, float lr, float* param, const float* grad) {
    reference::sgd_update(n, lr, param, grad);
}

void ReferenceBackend::synchronize() {}

}  // namespace dp
