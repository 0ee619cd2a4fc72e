#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace dp {

// Shapes of the ops. Each is a complete key for the plan a backend caches, so
// a backend builds its primitives (oneDNN) or picks its algorithms (cuDNN) once
// per shape and never in the step loop after the first batch of that shape.
struct Conv2dShape {
    int batch = 0;
    int in_channels = 0, in_h = 0, in_w = 0;
    int out_channels = 0, kernel = 0;
    int stride = 1, pad = 0;

    int out_h() const { return (in_h + 2 * pad - kernel) / stride + 1; }
    int out_w() const { return (in_w + 2 * pad - kernel) / stride + 1; }
    auto operator<=>(const Conv2dShape&) const = default;
};

struct Pool2dShape {
    int batch = 0;
    int channels = 0, in_h = 0, in_w = 0;
    int kernel = 2, stride = 2;

    int out_h() const { return (in_h - kernel) / stride + 1; }
    int out_w() const { return (in_w - kernel) / stride + 1; }
    auto operator<=>(const Pool2dShape&) const = default;
};

struct LinearShape {
    int batch = 0;
    int in_features = 0, out_features = 0;
    auto operator<=>(const LinearShape&) const = default;
};

// Device memory owned by a backend: host memory for the CPU, GPU memory for CUDA.
using DeviceBuffer = std::unique_ptr<float, void (*)(float*)>;

// The one interface through which layers compute. Layers never call a vendor
// library; each backend implements every op (forward and backward) once.
// Layouts are PyTorch's: activations NCHW, conv weights OIHW, linear weights
// [out, in]. All pointers are device pointers of this backend. Backward ops
// overwrite their outputs (each parameter is used once per step).
class Backend {
public:
    virtual ~Backend() = default;

    virtual std::string name() const = 0;

    // Memory. Labels live on the device as float class indices (exact below 2^24).
    virtual DeviceBuffer allocate(std::size_t floats) = 0;
    virtual void upload(const float* host, float* device, std::size_t floats) = 0;
    virtual void download(const float* device, float* host, std::size_t floats) = 0;
    virtual void upload_labels(const std::int32_t* host, float* device, std::size_t count) = 0;
    virtual void fill(float* device, std::size_t floats, float value) = 0;

    // y = conv(x, w) + b
    virtual void conv2d_forward(const Conv2dShape& s, const float* x, const float* w,
                                const float* b, float* y) = 0;
    virtual void conv2d_backward_data(const Conv2dShape& s, const float* dy, const float* w,
                                      float* dx) = 0;
    virtual void conv2d_backward_weights(const Conv2dShape& s, const float* x, const float* dy,
                                         float* dw, float* db) = 0;

    virtual void relu_forward(std::size_t n, const float* x, float* y) = 0;
    // dx = dy where y > 0, else 0 (y is the forward output)
    virtual void relu_backward(std::size_t n, const float* y, const float* dy, float* dx) = 0;

    virtual void avg_pool2d_forward(const Pool2dShape& s, const float* x, float* y) = 0;
    virtual void avg_pool2d_backward(const Pool2dShape& s, const float* dy, float* dx) = 0;

    // y = x w^T + b, w is [out, in]
    virtual void linear_forward(const LinearShape& s, const float* x, const float* w,
                                const float* b, float* y) = 0;
    virtual void linear_backward_data(const LinearShape& s, const float* dy, const float* w,
                                      float* dx) = 0;
    virtual void linear_backward_weights(const LinearShape& s, const float* x, const float* dy,
                                         float* dw, float* db) = 0;

    // Softmax cross-entropy over `batch` rows of `classes` logits. Returns the
    // loss summed over the rows and the number of rows whose arg-max equals
    // the label. If dlogits is not null it receives grad_scale * d(sum)/dlogits;
    // data parallelism passes 1 / global batch so shards sum to the global mean.
    struct LossResult {
        double loss_sum = 0;
        std::int64_t correct = 0;
    };
    virtual LossResult softmax_cross_entropy(int batch, int classes, const float* logits,
                                             const float* labels, float* dlogits,
                                             float grad_scale) = 0;

    // param -= lr * grad
    virtual void sgd_update(std::size_t n, float lr, float* param, const float* grad) = 0;

    // Blocks until all queued work is done (a no-op on synchronous backends).
    virtual void synchronize() = 0;
};

}  // namespace dp
