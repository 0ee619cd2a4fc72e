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
    global_sums_ = backend.allocate(3 * std::size_t(channels_));
    backend.fill(one_.get(), 1, 1.f);
}

BatchNorm2dShape BatchNorm2d::shape(int batch) const {
    return {.batch = batch, .channels = channels_, .h = input_.height, .w = input_.width};
}

void BatchNorm2d::forward(Backend& backend, const Pass& pass, const float* x, float* y) {
    normalize(backend, pass, x, y, false);
}

void BatchNorm2d::forward_relu(Backend& backend, const Pass& pass, const float* x, float* y) {
    normalize(backend, pass, x, y, true);
}

void BatchNorm2d::normalize(Backend& backend, const Pass& pass, const float* x, float* y,
                            bool relu) {
    const float* gamma = store_->value(weight_);
    const float* beta = store_->value(bias_);
    float* running_mean = store_->buffer(running_mean_);
    float* running_var = store_->buffer(running_var_);
    const auto s = shape(pass.batch);
    // An empty shard (synchronized statistics) has no element to rectify.
    const bool relu_after = relu && s.size() > 0;
    if (!pass.training) {
        backend.batch_norm2d_forward_given_stats(s, x, gamma, beta, running_mean, running_var, y);
        if (relu_after) backend.relu_forward(s.size(), y, y);
        return;
    }
    if (pass.sync_batch_norm) {
        forward_synchronized(backend, pass, x, y);
        if (relu_after) backend.relu_forward(s.size(), y, y);
    } else if (relu) {
        backend.batch_norm2d_relu_forward_training(s, x, gamma, beta, y, mean_.get(), var_.get(),
                                                   running_mean, running_var);
    } else {
        backend.batch_norm2d_forward_training(s, x, gamma, beta, y, mean_.get(), var_.get(),
                                              running_mean, running_var);
    }
    // running_mean += momentum x the input's skipped bias (sgd_update's
    // param -= lr x grad with lr = -momentum).
    if (biased_input_)
        backend.sgd_update(std::size_t(channels_), -s.momentum, running_mean,
                           biased_input_->bias());
    float* tracked = store_->buffer(batches_tracked_);
    backend.add(1, tracked, one_.get(), tracked);
}

void BatchNorm2d::follow(Conv2d& conv) {
    conv.skip_bias_in_training();
    biased_input_ = &conv;
}

void BatchNorm2d::backward(Backend& backend, const Pass& pass, const float* x, const float*,
                           const float* dy, float* dx) {
    if (pass.sync_batch_norm) return backward_synchronized(backend, pass, x, dy, dx);
    backend.batch_norm2d_backward(shape(pass.batch), x, dy, store_->value(weight_), mean_.get(),
                                  var_.get(), dx, store_->gradient(weight_),
                                  store_->gradient(bias_));
}

void BatchNorm2d::backward_relu(Backend& backend, const Pass& pass, const float* x,
                                const float* y, const float* dy, float* dx, float* masked_dy) {
    const auto s = shape(pass.batch);
    if (!pass.sync_batch_norm)
        return backend.batch_norm2d_relu_backward(s, x, y, dy, store_->value(weight_), mean_.get(),
                                                  var_.get(), dx, store_->gradient(weight_),
                                                  store_->gradient(bias_));
    if (s.size() > 0) backend.relu_backward(s.size(), y, dy, masked_dy);
    backward_synchronized(backend, pass, x, masked_dy, dx);
}

// nn.SyncBatchNorm: statistics of the global batch from all-reduced
// per-channel sums, in two passes like the single-device statistics: the
// global mean first, then the squares of the deviations from it. (One pass,
// sum of squares minus squared mean, loses the variance to cancellation when
// it is small next to the mean: 1e-3 loss differences between 1 and 3
// devices after two ResNet steps.)
void BatchNorm2d::forward_synchronized(Backend& backend, const Pass& pass, const float* x,
                                       float* y) {
    const auto s = shape(pass.batch);
    const auto channels = std::size_t(channels_);
    float* sum = global_sums_.get();
    float* sum_sq = sum + channels;
    float* global_mean = sum_sq + channels;
    const std::int64_t count = std::int64_t(pass.global_batch) * input_.height * input_.width;
    backend.batch_norm2d_sums(s, x, nullptr, sum, sum_sq);
    pass.sync_batch_norm->all_reduce_sum(pass.rank, sum, channels);
    backend.copy(channels, sum, global_mean);
    backend.scale(channels, 1.f / float(count), global_mean);
    backend.batch_norm2d_sums(s, x, global_mean, sum, sum_sq);
    pass.sync_batch_norm->all_reduce_sum(pass.rank, sum, 2 * channels);
    backend.batch_norm2d_stats_from_sums(s, count, sum, sum_sq, global_mean, mean_.get(),
                                         var_.get(), store_->buffer(running_mean_),
                                         store_->buffer(running_var_));
    backend.batch_norm2d_forward_given_stats(s, x, store_->value(weight_), store_->value(bias_),
                                             mean_.get(), var_.get(), y);
}

// The parameter gradients keep this replica's share, which the gradient
// all-reduce sums like every other gradient; dx needs the global sums now.
void BatchNorm2d::backward_synchronized(Backend& backend, const Pass& pass, const float* x,
                                        const float* dy, float* dx) {
    const auto s = shape(pass.batch);
    float* dgamma = store_->gradient(weight_);
    float* dbeta = store_->gradient(bias_);
    backend.batch_norm2d_backward_reduce(s, x, dy, mean_.get(), var_.get(), dgamma, dbeta);
    float* global_dgamma = global_sums_.get();
    float* global_dbeta = global_dgamma + channels_;
    backend.copy(channels_, dgamma, global_dgamma);
    backend.copy(channels_, dbeta, global_dbeta);
    pass.sync_batch_norm->all_reduce_sum(pass.rank, global_dgamma, 2 * std::size_t(channels_));
    const std::int64_t count = std::int64_t(pass.global_batch) * input_.height * input_.width;
    backend.batch_norm2d_backward_elementwise(s, count, x, dy, store_->value(weight_), mean_.get(),
                                              var_.get(), global_dgamma, global_dbeta, dx);
}

}  // namespace dp
