#pragma once

#include <string>

#include "backend/backend.h"
#include "nn/parameter_store.h"

namespace dp {

// The shape of one sample, channels x height x width (1 x 1 x F for features).
struct SampleShape {
    int channels = 1, height = 1, width = 1;
    std::size_t size() const { return std::size_t(channels) * height * width; }
    auto operator<=>(const SampleShape&) const = default;
};

// A layer knows its parameters (declared into the replica's ParameterStore)
// and computes through a Backend. Activations are owned by the model.
class Layer {
public:
    virtual ~Layer() = default;

    virtual SampleShape output_shape(const SampleShape& input) const = 0;

    // Called once when the model is built, before the store allocates: a layer
    // records its input shape and declares its parameters, keeping `store` and
    // the indices it returns.
    virtual void build(ParameterStore& /*store*/, const SampleShape& /*input*/) {}

    virtual void forward(Backend& backend, int batch, const float* x, float* y) = 0;

    // Writes the gradients of this layer's parameters and, if dx is not null,
    // the gradient of its input. x and y are this layer's forward input and output.
    virtual void backward(Backend& backend, int batch, const float* x, const float* y,
                          const float* dy, float* dx) = 0;
};

}  // namespace dp
