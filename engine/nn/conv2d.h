#pragma once

#include "nn/layer.h"

namespace dp {

// nn.Conv2d with a square kernel; weight OIHW, bias per output channel.
class Conv2d final : public Layer {
public:
    Conv2d(std::string name, int in_channels, int out_channels, int kernel, int stride = 1,
           int pad = 0);

    SampleShape output_shape(const SampleShape& input) const override;
    void build(ParameterStore& store, const SampleShape& input) override;
    void forward(Backend& backend, const Pass& pass, const float* x, float* y) override;
    void backward(Backend& backend, const Pass& pass, const float* x, const float* y,
                  const float* dy, float* dx) override;

private:
    Conv2dShape shape(int batch) const;

    std::string name_;
    Conv2dShape geometry_;  // batch filled in per call
    ParameterStore* store_ = nullptr;
    std::size_t weight_ = 0, bias_ = 0;
};

}  // namespace dp
