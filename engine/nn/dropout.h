#pragma once

#include "nn/layer.h"

namespace dp {

// nn.Dropout (one draw per element) or nn.Dropout2d (one per channel plane),
// active in training only. Masks depend on (seed, step, sample), never on how
// the batch was split across devices.
class Dropout final : public Layer {
public:
    enum class Unit { element, channel };

    // `salt` tells this layer's masks from the other dropout layers' of a model.
    Dropout(Unit unit, float p, std::uint64_t salt);

    SampleShape output_shape(const SampleShape& input) const override { return input; }
    void build(ParameterStore& store, const SampleShape& input) override;
    void allocate(Backend& backend, int max_batch) override;
    void forward(Backend& backend, const Pass& pass, const float* x, float* y) override;
    void backward(Backend& backend, const Pass& pass, const float* x, const float* y,
                  const float* dy, float* dx) override;
    bool draws_per_step() const override { return true; }

private:
    Unit unit_;
    float p_;
    std::uint64_t salt_;
    SampleShape input_;
    DeviceBuffer mask_{nullptr, nullptr};
};

}  // namespace dp
