#include "nn/batch_norm2d.h"

#include "core/error.h"

namespace dp {

BatchNorm2d::BatchNorm2d(std::string name, int channels)
    : name_(std::move(name)), channels_(channels) {}

void BatchNorm2d::build(ParameterStore& store, const SampleShape& input) {
    if (input.channels != channels_)
        throw Error(name_ + ": expects " + std::to_string(channels_) + " channels, got " +
                    std::to_string(input.channels));
    input_ = input;
    store_ = &store;
    weight_ = store.declare(name_ + ".weight", {channels_}, ParameterInit::ones);
    bias_ = store.declare(name_ + ".bias", {channels_}, ParameterInit::zeros);
    running_mean_ = store.declare_buffer(name_ + ".running_mean", {channels_}, ParameterInit::zeros);
    running_var_ = store.declare_buffer(name_ + ".running_var", {channels_}, ParameterInit::ones);
    batches_tracked_ = store.declare_buffer(name_ + ".num_batches_tracked", {}, ParameterInit::zeros);
}

void BatchNorm2d::allocate(Backend& backend, int) {
    mean_ = backend.allocate(channels_);
    var_ = backend.allocate(channels_);
    one_ = backend.allocate(1);
    backend.fill(one_.get(), 1, 1.f);
}

BatchNorm2dShape BatchNorm2d::shape(int batch) const {
    return {.batch = batch, .channels = channels_, .h = input_.height, .w = input_.width};
}

void BatchNorm2d::forward(Backend& backend, const Pass& pass, const float* x, float* y) {
    const float* gamma = store_->value(weight_);
    const float* beta = store_->value(bias_);
    float* running_mean = store_->buffer(running_mean_);
    float* running_var = store_->buffer(running_var_);
    if (!pass.training) {
        backend.batch_norm2d_forward_given_stats(shape(pass.batch), x, gamma, beta, running_mean,
                                                 running_var, y);
        return;
    }
    backend.batch_norm2d_forward_training(shape(pass.batch), x, gamma, beta, y, mean_.get(),
                                          var_.get(), running_mean, running_var);
    float* tracked = store_->buffer(batches_tracked_);
    backend.add(1, tracked, one_.get(), tracked);
}

void BatchNorm2d::backward(Backend& backend, const Pass& pass, const float* x, const float*,
                           const float* dy, float* dx) {
    backend.batch_norm2d_backward(shape(pass.batch), x, dy, store_->value(weight_), mean_.get(),
                                  var_.get(), dx, store_->gradient(weight_),
                                  store_->gradient(bias_));
}

}  // namespace dp
