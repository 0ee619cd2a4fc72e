#pragma once

#include "nn/layer.h"

namespace dp {

// nn.AdaptiveAvgPool2d((1, 1)) followed by flattening: C x H x W -> C.
class GlobalAvgPool2d final : public Layer {
public:
    SampleShape output_shape(const SampleShape& input) const override {
        return {1, 1, input.channels};
    }
    void build(ParameterStore& store, const SampleShape& input) override;
    void forward(Backend& backend, const Pass& pass, const float* x, float* y) override;
    void backward(Backend& backend, const Pass& pass, const float* x, const float* y,
                  const float* dy, float* dx) override;

private:
    NchwShape shape(int batch) const { return {batch, input_.channels, input_.height, input_.width}; }

    SampleShape input_;
};

}  // namespace dp
