#pragma once

#include "backend/backend.h"

namespace dp {

// The Backend on host memory, computing with the naive float loops of
// reference_ops.h: slow, single-threaded and synchronous, but the standard
// that the fast backends are tested against.
class ReferenceBackend final : public Backend {
public:
    std::string name() const override;

    DeviceBuffer allocate(std::size_t floats) override;
    void upload(const float* host, float* device, std::size_t floats) override;
    void download(const float* device, float* host, std::size_t floats) override;
    void upload_labels(const std::int32_t* host, float* device, std::size_t count) override;
    void fill(float* device, std::size_t floats, float value) override;

    void conv2d_forward(const Conv2dShape& s, const float* x, const float* w, const float* b,
                        float* y) override;
    void conv2d_backward_data(const Conv2dShape& s, const float* dy, const float* w,
                              float* dx) override;
    void conv2d_backward_weights(const Conv2dShape& s, const float* x, const float* dy, float* dw,
                                 float* db) override;

    void relu_forward(std::size_t n, const float* x, float* y) override;
    void relu_backward(std::size_t n, const float* y, const float* dy, float* dx) override;

    void avg_pool2d_forward(const Pool2dShape& s, const float* x, float* y) override;
    void avg_pool2d_backward(const Pool2dShape& s, const float* dy, float* dx) override;

    void linear_forward(const LinearShape& s, const float* x, const float* w, const float* b,
                        float* y) override;
    void linear_backward_data(const LinearShape& s, const float* dy, const float* w,
                              float* dx) override;
    void linear_backward_weights(const LinearShape& s, const float* x, const float* dy, float* dw,
                                 float* db) override;

    LossResult softmax_cross_entropy(int batch, int classes, const float* logits,
                                     const float* labels, float* dlogits,
                                     float grad_scale) override;

    void sgd_update(std::size_t n, float lr, float* param, const float* grad) override;

    void synchronize() override;
};

}  // namespace dp
