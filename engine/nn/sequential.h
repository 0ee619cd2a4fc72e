#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "nn/layer.h"
#include "nn/parameter_store.h"

namespace dp {

// A chain of layers on one device: one replica of a model. It owns the
// parameters, their gradients and the activations of a batch of up to
// `max_batch` samples, all allocated by build(), so a training step allocates
// nothing. A smaller batch uses a prefix of each activation buffer (NCHW).
class Sequential {
public:
    // How the outputs become a loss: cross-entropy of logits (nn.CrossEntropyLoss),
    // or NLL of log-probabilities for a model ending in LogSoftmax (F.nll_loss).
    enum class Loss { softmax_cross_entropy, nll };

    Sequential(SampleShape input, int classes, Loss loss = Loss::softmax_cross_entropy);

    void add(std::unique_ptr<Layer> layer);

    // Builds the layers and declares their parameters, allocating nothing.
    // Call once, after the last add() (build() calls it if needed).
    void declare();

    // Allocates everything on `backend` and initializes the parameters from `seed`.
    void build(Backend& backend, int max_batch, std::uint64_t seed);

    // Returns the outputs (logits, or log-probabilities for a model that ends
    // in log-softmax), [batch, classes], in device memory. A batch of 0 (an
    // empty shard) runs only the layers that join other replicas'
    // collectives (Layer::runs_on_empty_shard), forward and backward, and
    // its gradients are zero.
    const float* forward(const Pass& pass, const float* input);

    // Called during backward each time a layer's parameter gradients are
    // final, with the index of that layer's first parameter: from it to the
    // last parameter, every gradient is then final (backward runs in reverse).
    using GradientsFinal = std::function<void(std::size_t first_final_parameter)>;

    // Back-propagates `dlogits` through the activations of the last forward,
    // writing every parameter's gradient.
    void backward(const Pass& pass, const float* input, const float* dlogits,
                  const GradientsFinal& on_gradients_final = {});

    // The floats build() allocates per sample of max_batch: every layer's
    // output and its gradient (after declare()). Layers' own saved state
    // (residual blocks' inner activations, masks) is not counted.
    std::size_t activation_floats_per_sample() const;

    ParameterStore& parameters() { return parameters_; }
    const ParameterStore& parameters() const { return parameters_; }
    SampleShape input_shape() const { return input_; }
    int classes() const { return classes_; }
    Loss loss() const { return loss_; }
    // Whether a layer's training work depends on the step's number (Layer::draws_per_step).
    bool draws_per_step() const;
    Backend& backend() { return *backend_; }

private:
    SampleShape input_;
    int classes_;
    Loss loss_;
    bool declared_ = false;
    Backend* backend_ = nullptr;
    std::vector<std::unique_ptr<Layer>> layers_;
    std::vector<SampleShape> output_shapes_;  // per layer
    std::vector<std::size_t> first_parameter_;  // per layer: its first index in parameters_
    std::vector<std::string> labels_;  // per layer: its name in the per-op timer's table
    ParameterStore parameters_;
    std::vector<DeviceBuffer> outputs_;       // per layer
    std::vector<DeviceBuffer> output_grads_;  // per layer, except the last (dlogits is given)
};

}  // namespace dp
