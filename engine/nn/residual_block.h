#pragma once

#include <optional>

#include "nn/batch_norm2d.h"
#include "nn/batch_norm2d_relu.h"
#include "nn/conv2d.h"
#include "nn/layer.h"
#include "nn/relu.h"

namespace dp {

// d2l's Residual (d2l 12.6): y = relu(bn2(conv2(relu(bn1(conv1(x))))) + s),
// where s is x, or conv3(x), a strided 1x1 projection, when the block changes
// shape. Parameters are named as PyTorch's state_dict names them:
// <name>.conv1.weight, <name>.bn1.running_mean, ... bn1 and its relu are one
// BatchNorm2dRelu, fused unless `fused_bn_relu` is false; bn2's relu comes
// after the shortcut's add, so it stays a BatchNorm2d and a Relu.
class ResidualBlock final : public Layer {
public:
    ResidualBlock(const std::string& name, int in_channels, int out_channels, bool use_1x1conv,
                  int stride, bool fused_bn_relu = true);

    SampleShape output_shape(const SampleShape& input) const override;
    void build(ParameterStore& store, const SampleShape& input) override;
    void allocate(Backend& backend, int max_batch) override;
    void forward(Backend& backend, const Pass& pass, const float* x, float* y) override;
    void backward(Backend& backend, const Pass& pass, const float* x, const float* y,
                  const float* dy, float* dx) override;
    // Its BatchNorms' collectives; on an empty shard it runs only those.
    bool runs_on_empty_shard(const Pass& pass) const override {
        return bn2_.runs_on_empty_shard(pass);
    }

private:
    Conv2d conv1_, conv2_;
    std::optional<Conv2d> conv3_;
    BatchNorm2dRelu bn_relu1_;
    BatchNorm2d bn2_;
    Relu relu_out_;
    SampleShape input_, output_;
    // Inner activations of the last forward, for the backward.
    DeviceBuffer conv1_out_{nullptr, nullptr}, relu1_out_{nullptr, nullptr}, conv2_out_{nullptr, nullptr}, sum_{nullptr, nullptr},
        shortcut_{nullptr, nullptr};
    // Gradient scratch: d(sum), which both branches read, two buffers the
    // main path alternates between, and the projection's input gradient.
    DeviceBuffer dsum_{nullptr, nullptr}, grad_a_{nullptr, nullptr}, grad_b_{nullptr, nullptr},
        shortcut_grad_{nullptr, nullptr};
};

}  // namespace dp
