#include "nn/avg_pool2d.h"

namespace dp {

void AvgPool2d::forward(Backend& backend, const Pass& pass, const float* x, float* y) {
    backend.avg_pool2d_forward(shape(pass.batch), x, y);
}

void AvgPool2d::backward(Backend& backend, const Pass& pass, const float*, const float*,
                         const float* dy, float* dx) {
    if (dx) backend.avg_pool2d_backward(shape(pass.batch), dy, dx);
}

}  // namespace dp
