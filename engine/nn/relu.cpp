#include "nn/relu.h"

namespace dp {

void Relu::build(ParameterStore&, const SampleShape& input) { sample_size_ = input.size(); }

void Relu::forward(Backend& backend, const Pass& pass, const float* x, float* y) {
    backend.relu_forward(sample_size_ * pass.batch, x, y);
}

void Relu::backward(Backend& backend, const Pass& pass, const float*, const float* y, const float* dy,
                    float* dx) {
    if (dx) backend.relu_backward(sample_size_ * pass.batch, y, dy, dx);
}

}  // namespace dp
