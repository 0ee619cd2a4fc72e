#pragma once

#include "nn/pool2d_layer.h"

namespace dp {

// nn.MaxPool2d(kernel, stride, padding). Keeps which element won each window
// (the backend's workspace) for the backward.
class MaxPool2d final : public Pool2dLayer {
public:
    MaxPool2d(int kernel, int stride, int pad = 0) : Pool2dLayer(kernel, stride, pad) {}

    void allocate(Backend& backend, int max_batch) override;
    void forward(Backend& backend, const Pass& pass, const float* x, float* y) override;
    void backward(Backend& backend, const Pass& pass, const float* x, const float* y,
                  const float* dy, float* dx) override;

private:
    DeviceBuffer workspace_{nullptr, nullptr};
};

}  // namespace dp
