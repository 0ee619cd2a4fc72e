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

    // This convolution feeds a BatchNorm2d (BatchNorm2d::follow): in
    // training the BatchNorm subtracts the batch mean, which cancels the
    // bias exactly, so training passes skip the bias add and the bias
    // gradient (exactly 0 in exact arithmetic) is set to exactly 0. The
    // parameter stays, so checkpoints load in PyTorch as they are, and
    // evaluation adds it as PyTorch does.
    void skip_bias_in_training() { skip_bias_in_training_ = true; }
    const float* bias() const { return store_->value(bias_); }

private:
    Conv2dShape shape(int batch) const;

    std::string name_;
    Conv2dShape geometry_;  // batch filled in per call
    ParameterStore* store_ = nullptr;
    std::size_t weight_ = 0, bias_ = 0;
    bool skip_bias_in_training_ = false;
};

}  // namespace dp
