#include "nn/global_avg_pool2d.h"

namespace dp {

void GlobalAvgPool2d::build(ParameterStore&, const SampleShape& input) { input_ = input; }

void GlobalAvgPool2d::forward(Backend& backend, const Pass& pass, const float* x, float* y) {
    backend.global_avg_pool2d_forward(shape(pass.batch), x, y);
}

void GlobalAvgPool2d::backward(Backend& backend, const Pass& pass, const float*, const float*,
                               const float* dy, float* dx) {
    if (dx) backend.global_avg_pool2d_backward(shape(pass.batch), dy, dx);
}

}  // namespace dp
