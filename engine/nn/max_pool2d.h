#pragma once

#include "nn/layer.h"

namespace dp {

// nn.MaxPool2d(kernel, stride, padding). Keeps which element won each window
// (the backend's workspace) for the backward.
class MaxPool2d final : public Layer {
public:
    MaxPool2d(int kernel, int stride, int pad = 0);

    SampleShape output_shape(const SampleShape& input) const override;
    void build(ParameterStore& store, const SampleShape& input) override;
    void allocate(Backend& backend, int max_batch) override;
    void forward(Backend& backend, const Pass& pass, const float* x, float* y) override;
    void backward(Backend& backend, const Pass& pass, const float* x, const float* y,
                  const float* dy, float* dx) override;

private:
    Pool2dShape shape(int batch) const;

    Pool2dShape geometry_;
    DeviceBuffer workspace_{nullptr, nullptr};
};

}  // namespace dp
