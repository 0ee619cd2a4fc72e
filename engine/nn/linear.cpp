#include "nn/linear.h"

#include "core/error.h"

namespace dp {

Linear::Linear(std::string name, int in_features, int out_features)
    : name_(std::move(name)), in_features_(in_features), out_features_(out_features) {}

SampleShape Linear::output_shape(const SampleShape&) const { return {1, 1, out_features_}; }

void Linear::build(ParameterStore& store, const SampleShape& input) {
    if (input.size() != std::size_t(in_features_))
        throw Error(name_ + ": expects " + std::to_string(in_features_) + " input features, got " +
                    std::to_string(input.size()));
    store_ = &store;
    weight_ = store.declare(name_ + ".weight", {out_features_, in_features_},
                            ParameterInit::normal_0_01);
    bias_ = store.declare(name_ + ".bias", {out_features_}, ParameterInit::zeros);
}

void Linear::forward(Backend& backend, const Pass& pass, const float* x, float* y) {
    backend.linear_forward(shape(pass.batch), x, store_->value(weight_), store_->value(bias_), y);
}

void Linear::backward(Backend& backend, const Pass& pass, const float* x, const float*, const float* dy,
                      float* dx) {
    backend.linear_backward_weights(shape(pass.batch), x, dy, store_->gradient(weight_),
                                    store_->gradient(bias_));
    if (dx) backend.linear_backward_data(shape(pass.batch), dy, store_->value(weight_), dx);
}

}  // namespace dp
