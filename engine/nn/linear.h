#pragma once

#include "nn/layer.h"

namespace dp {

// nn.Linear: weight [out, in], bias [out]. Takes any input shape flattened
// (PyTorch's x.reshape(batch, -1) of an NCHW tensor), so no Flatten layer is needed.
class Linear final : public Layer {
public:
    Linear(std::string name, int in_features, int out_features);

    SampleShape output_shape(const SampleShape& input) const override;
    void build(ParameterStore& store, const SampleShape& input) override;
    void forward(Backend& backend, const Pass& pass, const float* x, float* y) override;
    void backward(Backend& backend, const Pass& pass, const float* x, const float* y,
                  const float* dy, float* dx) override;

private:
    LinearShape shape(int batch) const { return {batch, in_features_, out_features_}; }

    std::string name_;
    int in_features_, out_features_;
    ParameterStore* store_ = nullptr;
    std::size_t weight_ = 0, bias_ = 0;
};

}  // namespace dp
