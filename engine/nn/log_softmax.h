#pragma once

#include "nn/layer.h"

namespace dp {

// nn.LogSoftmax(dim=1) over the features of each sample; a model ending in it
// is trained with the NLL loss (the MNIST CNN's).
class LogSoftmax final : public Layer {
public:
    SampleShape output_shape(const SampleShape& input) const override { return input; }
    void build(ParameterStore& store, const SampleShape& input) override;
    void forward(Backend& backend, const Pass& pass, const float* x, float* y) override;
    void backward(Backend& backend, const Pass& pass, const float* x, const float* y,
                  const float* dy, float* dx) override;

private:
    int classes_ = 0;
};

}  // namespace dp
