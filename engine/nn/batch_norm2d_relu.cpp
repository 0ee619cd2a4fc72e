#include "nn/batch_norm2d_relu.h"

#include "core/env_flag.h"

namespace dp {

bool fuse_batch_norm_relu() { return env_flag("DP_FUSED_BN_RELU", true); }

BatchNorm2dRelu::BatchNorm2dRelu(std::string name, int channels, bool fused)
    : norm_(std::move(name), channels), fused_(fused) {}

void BatchNorm2dRelu::build(ParameterStore& store, const SampleShape& input) {
    norm_.build(store, input);
    relu_.build(store, input);
    sample_size_ = input.size();
}

void BatchNorm2dRelu::allocate(Backend& backend, int max_batch) {
    norm_.allocate(backend, max_batch);
    masked_dy_ = backend.allocate(sample_size_ * std::size_t(max_batch));
}

void BatchNorm2dRelu::forward(Backend& backend, const Pass& pass, const float* x, float* y) {
    if (fused_) return norm_.forward_relu(backend, pass, x, y);
    norm_.forward(backend, pass, x, y);
    if (pass.batch > 0) relu_.forward(backend, pass, y, y);
}

void BatchNorm2dRelu::backward(Backend& backend, const Pass& pass, const float* x, const float* y,
                               const float* dy, float* dx) {
    if (fused_) return norm_.backward_relu(backend, pass, x, y, dy, dx, masked_dy_.get());
    if (pass.batch > 0) relu_.backward(backend, pass, nullptr, y, dy, masked_dy_.get());
    norm_.backward(backend, pass, x, nullptr, masked_dy_.get(), dx);
}

}  // namespace dp
