#pragma once

#include "nn/conv2d.h"
#include "nn/layer.h"

namespace dp {

// nn.BatchNorm2d(channels), eps 1e-5, momentum 0.1: batch statistics in
// training (and running statistics updated as PyTorch does), running
// statistics in evaluation. Parameters weight (gamma) and bias (beta);
// buffers running_mean, running_var and num_batches_tracked.
class BatchNorm2d final : public Layer {
public:
    BatchNorm2d(std::string name, int channels);

    SampleShape output_shape(const SampleShape& input) const override { return input; }
    void build(ParameterStore& store, const SampleShape& input) override;
    void allocate(Backend& backend, int max_batch) override;
    void forward(Backend& backend, const Pass& pass, const float* x, float* y) override;
    void backward(Backend& backend, const Pass& pass, const float* x, const float* y,
                  const float* dy, float* dx) override;
    // This layer followed by a ReLU, y = max(forward's y, 0), for
    // BatchNorm2dRelu: training with per-replica statistics runs the
    // backend's fused ops (one pass each way on CUDA); evaluation and
    // synchronized statistics have none, so they run the ReLU after. The
    // backward takes y (the ReLU's output) and dy (its gradient);
    // `masked_dy`, as large as y, holds the ReLU's input gradient where the
    // ops are not fused.
    void forward_relu(Backend& backend, const Pass& pass, const float* x, float* y);
    void backward_relu(Backend& backend, const Pass& pass, const float* x, const float* y,
                       const float* dy, float* dx, float* masked_dy);
    // Synchronized: on 0 samples its sums are zero, and it keeps the same
    // global statistics and running statistics as every other replica.
    bool runs_on_empty_shard(const Pass& pass) const override {
        return pass.sync_batch_norm != nullptr;
    }

    // `conv` feeds this layer: it skips its bias in training
    // (Conv2d::skip_bias_in_training), and this layer adds momentum x that
    // bias to its running mean, which is what the batch mean of the biased
    // output would have added: the running statistics stay PyTorch's.
    void follow(Conv2d& conv);

private:
    BatchNorm2dShape shape(int batch) const;
    void normalize(Backend& backend, const Pass& pass, const float* x, float* y, bool relu);
    void forward_synchronized(Backend& backend, const Pass& pass, const float* x, float* y);
    void backward_synchronized(Backend& backend, const Pass& pass, const float* x,
                               const float* dy, float* dx);

    std::string name_;
    int channels_;
    const Conv2d* biased_input_ = nullptr;  // follow()
    SampleShape input_;
    ParameterStore* store_ = nullptr;
    std::size_t weight_ = 0, bias_ = 0;
    std::size_t running_mean_ = 0, running_var_ = 0, batches_tracked_ = 0;
    DeviceBuffer mean_{nullptr, nullptr}, var_{nullptr, nullptr};  // saved for backward
    DeviceBuffer one_{nullptr, nullptr};  // the constant 1, to count batches on the device
    // Synchronized BatchNorm: per-channel sums and the global mean, then
    // dgamma and dbeta, over the global batch.
    DeviceBuffer global_sums_{nullptr, nullptr};
};

}  // namespace dp
