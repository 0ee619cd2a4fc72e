#pragma once

#include <string>

#include "nn/batch_norm2d.h"
#include "nn/layer.h"
#include "nn/relu.h"

namespace dp {

// Whether models build their BatchNorm+ReLU pairs fused: DP_FUSED_BN_RELU,
// on unless set to 0 (the unfused pair, for an A/B on a GPU). Read when a
// model is built; a bad value is a dp::Error naming the variable.
bool fuse_batch_norm_relu();

// nn.BatchNorm2d(channels) followed by nn.ReLU, as one layer so that the
// backend's fused ops run them in one pass each way (CUDA's fused kernels;
// the CPU backends run the same two ops, bit-exact to the pair). Its
// parameters and buffers are the BatchNorm's, named <name>.weight, ... as
// before: checkpoints do not change. Unfused (`fused` false), it runs the
// pair's ops as BatchNorm2d and Relu did. The forward keeps only y, the
// ReLU's output, which both backwards read.
class BatchNorm2dRelu final : public Layer {
public:
    BatchNorm2dRelu(std::string name, int channels, bool fused);

    SampleShape output_shape(const SampleShape& input) const override { return input; }
    void build(ParameterStore& store, const SampleShape& input) override;
    void allocate(Backend& backend, int max_batch) override;
    void forward(Backend& backend, const Pass& pass, const float* x, float* y) override;
    void backward(Backend& backend, const Pass& pass, const float* x, const float* y,
                  const float* dy, float* dx) override;
    bool runs_on_empty_shard(const Pass& pass) const override {
        return norm_.runs_on_empty_shard(pass);
    }

    // BatchNorm2d::follow: `conv` feeds the BatchNorm.
    void follow(Conv2d& conv) { norm_.follow(conv); }

private:
    BatchNorm2d norm_;
    Relu relu_;
    bool fused_;
    // The ReLU's input gradient, where the two are not fused (unfused, or
    // synchronized statistics).
    DeviceBuffer masked_dy_{nullptr, nullptr};
    std::size_t sample_size_ = 0;
};

}  // namespace dp
