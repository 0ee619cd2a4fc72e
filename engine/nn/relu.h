#pragma once

#include "nn/layer.h"

namespace dp {

class Relu final : public Layer {
public:
    SampleShape output_shape(const SampleShape& input) const override { return input; }
    void build(ParameterStore& store, const SampleShape& input) override;
    void forward(Backend& backend, const Pass& pass, const float* x, float* y) override;
    void backward(Backend& backend, const Pass& pass, const float* x, const float* y,
                  const float* dy, float* dx) override;

private:
    std::size_t sample_size_ = 0;
};

}  // namespace dp
