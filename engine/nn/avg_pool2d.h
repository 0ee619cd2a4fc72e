#pragma once

#include "nn/pool2d_layer.h"

namespace dp {

// nn.AvgPool2d(kernel, stride), no padding.
class AvgPool2d final : public Pool2dLayer {
public:
    AvgPool2d(int kernel, int stride) : Pool2dLayer(kernel, stride, 0) {}

    void forward(Backend& backend, const Pass& pass, const float* x, float* y) override;
    void backward(Backend& backend, const Pass& pass, const float* x, const float* y,
                  const float* dy, float* dx) override;
};

}  // namespace dp
