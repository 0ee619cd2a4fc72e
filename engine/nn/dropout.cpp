#include "nn/dropout.h"

namespace dp {

Dropout::Dropout(Unit unit, float p, std::uint64_t salt) : unit_(unit), p_(p), salt_(salt) {}

void Dropout::build(ParameterStore&, const SampleShape& input) { input_ = input; }

void Dropout::allocate(Backend& backend, int max_batch) {
    mask_ = backend.allocate(input_.size() * max_batch);
}

void Dropout::forward(Backend& backend, const Pass& pass, const float* x, float* y) {
    // Evaluation keeps every unit: p = 0 gives y = x.
    const float p = pass.training ? p_ : 0.f;
    const std::uint64_t units_per_sample = unit_ == Unit::element ? input_.size() : input_.channels;
    const DropoutConfig config{.p = p,
                               .seed = pass.seed ^ (salt_ * 0x9E3779B97F4A7C15ull),
                               .step = pass.step,
                               .offset = pass.first_sample * units_per_sample};
    if (unit_ == Unit::element)
        backend.dropout_forward(input_.size() * pass.batch, config, x, y, mask_.get());
    else
        backend.dropout2d_forward({pass.batch, input_.channels, input_.height, input_.width},
                                  config, x, y, mask_.get());
}

void Dropout::backward(Backend& backend, const Pass& pass, const float*, const float*,
                       const float* dy, float* dx) {
    if (dx) backend.dropout_backward(input_.size() * pass.batch, mask_.get(), dy, dx);
}

}  // namespace dp
