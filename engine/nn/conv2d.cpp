#include "nn/conv2d.h"

#include "core/error.h"

namespace dp {

Conv2d::Conv2d(std::string name, int in_channels, int out_channels, int kernel, int stride,
               int pad)
    : name_(std::move(name)) {
    geometry_.in_channels = in_channels;
    geometry_.out_channels = out_channels;
    geometry_.kernel = kernel;
    geometry_.stride = stride;
    geometry_.pad = pad;
}

SampleShape Conv2d::output_shape(const SampleShape& input) const {
    Conv2dShape s = geometry_;
    s.in_h = input.height;
    s.in_w = input.width;
    return {s.out_channels, s.out_h(), s.out_w()};
}

void Conv2d::build(ParameterStore& store, const SampleShape& input) {
    if (input.channels != geometry_.in_channels)
        throw Error(name_ + ": expects " + std::to_string(geometry_.in_channels) +
                    " input channels, got " + std::to_string(input.channels));
    geometry_.in_h = input.height;
    geometry_.in_w = input.width;
    if (geometry_.out_h() <= 0 || geometry_.out_w() <= 0)
        throw Error(name_ + ": input " + std::to_string(input.height) + "x" +
                    std::to_string(input.width) + " is smaller than the kernel");
    const int k = geometry_.kernel;
    store_ = &store;
    weight_ = store.declare(name_ + ".weight", {geometry_.out_channels, geometry_.in_channels, k, k},
                            ParameterInit::normal_0_01);
    bias_ = store.declare(name_ + ".bias", {geometry_.out_channels}, ParameterInit::zeros);
}

Conv2dShape Conv2d::shape(int batch) const {
    Conv2dShape s = geometry_;
    s.batch = batch;
    return s;
}

void Conv2d::forward(Backend& backend, const Pass& pass, const float* x, float* y) {
    const bool with_bias = !(skip_bias_in_training_ && pass.training);
    backend.conv2d_forward(shape(pass.batch), x, store_->value(weight_),
                           with_bias ? store_->value(bias_) : nullptr, y);
}

void Conv2d::backward(Backend& backend, const Pass& pass, const float* x, const float*, const float* dy,
                      float* dx) {
    float* bias_gradient = store_->gradient(bias_);
    if (skip_bias_in_training_) {
        // A few floats: every step, so that nothing else written there survives.
        backend.fill(bias_gradient, std::size_t(geometry_.out_channels), 0.f);
        bias_gradient = nullptr;
    }
    backend.conv2d_backward_weights(shape(pass.batch), x, dy, store_->gradient(weight_),
                                    bias_gradient);
    if (dx) backend.conv2d_backward_data(shape(pass.batch), dy, store_->value(weight_), dx);
}

}  // namespace dp
