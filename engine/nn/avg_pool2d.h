#pragma once

#include "nn/layer.h"

namespace dp {

// nn.AvgPool2d(kernel, stride), no padding.
class AvgPool2d final : public Layer {
public:
    AvgPool2d(int kernel, int stride);

    SampleShape output_shape(const SampleShape& input) const override;
    void build(ParameterStore& store, const SampleShape& input) override;
    void forward(Backend& backend, const Pass& pass, const float* x, float* y) override;
    void backward(Backend& backend, const Pass& pass, const float* x, const float* y,
                  const float* dy, float* dx) override;

private:
    Pool2dShape shape(int batch) const;

    Pool2dShape geometry_;
};

}  // namespace dp
