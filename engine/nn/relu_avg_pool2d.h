#pragma once

#include "nn/pool2d_layer.h"

namespace dp {

// nn.ReLU followed by nn.AvgPool2d(kernel, stride), no padding, as one
// layer: the pool reads max(x, 0) and the ReLU's output is never stored.
// The same numbers as the two layers, in two passes over x (forward and
// backward) instead of six.
class ReluAvgPool2d final : public Pool2dLayer {
public:
    ReluAvgPool2d(int kernel, int stride) : Pool2dLayer(kernel, stride, 0) {}

    void forward(Backend& backend, const Pass& pass, const float* x, float* y) override;
    void backward(Backend& backend, const Pass& pass, const float* x, const float* y,
                  const float* dy, float* dx) override;
};

}  // namespace dp
