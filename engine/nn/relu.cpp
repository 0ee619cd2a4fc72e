#include "nn/relu.h"

namespace dp {

void Relu::build(ParameterStore&, const SampleShape& input) { sample_size_ = input.size(); }

void Relu::forward(Backend& backend, int batch, const float* x, float* y) {
    backend.relu_forward(sample_size_ * batch, x, y);
}

void Relu::backward(Backend& backend, int batch, const float*, const float* y, const float* dy,
                    float* dx) {
    if (dx) backend.relu_backward(sample_size_ * batch, y, dy, dx);
}

}  // namespace dp
