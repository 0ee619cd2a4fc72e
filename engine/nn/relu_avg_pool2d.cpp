#include "nn/relu_avg_pool2d.h"

namespace dp {

void ReluAvgPool2d::forward(Backend& backend, const Pass& pass, const float* x, float* y) {
    backend.relu_avg_pool2d_forward(shape(pass.batch), x, y);
}

void ReluAvgPool2d::backward(Backend& backend, const Pass& pass, const float* x, const float*,
                             const float* dy, float* dx) {
    if (dx) backend.relu_avg_pool2d_backward(shape(pass.batch), x, dy, dx);
}

}  // namespace dp
