#pragma once

#include <cstdint>
#include <string>

#include "backend/backend.h"
#include "collective/communicator.h"
#include "nn/parameter_store.h"
#include "nn/sample_shape.h"

namespace dp {

// What one forward and backward pass is: its batch, and whether it trains
// (BatchNorm's batch statistics, dropout) or evaluates.
struct Pass {
    int batch = 0;
    bool training = true;
    std::uint64_t seed = 0;          // the run's seed: dropout's masks
    std::uint64_t step = 0;          // counts training steps: dropout's masks
    std::uint64_t first_sample = 0;  // this shard's offset in the global batch: dropout's masks
    // Synchronized BatchNorm: the replicas' communicator, this replica's rank
    // in it and the global batch; null for per-replica statistics.
    Communicator* sync_batch_norm = nullptr;
    int rank = 0;
    int global_batch = 0;
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

    // Allocates what the layer keeps between its forward and backward (saved
    // statistics, masks, inner activations) for batches of up to max_batch.
    virtual void allocate(Backend& /*backend*/, int /*max_batch*/) {}

    virtual void forward(Backend& backend, const Pass& pass, const float* x, float* y) = 0;

    // Writes the gradients of this layer's parameters and, if dx is not null,
    // the gradient of its input. x and y are this layer's forward input and
    // output in the training pass `pass`.
    virtual void backward(Backend& backend, const Pass& pass, const float* x, const float* y,
                          const float* dy, float* dx) = 0;

    // Whether the layer's forward and backward in `pass` join collectives of
    // the other replicas (synchronized BatchNorm's all-reduces), so that a
    // replica with an empty shard must run them too, on 0 samples, its
    // contribution zero. Sequential skips every other layer on an empty
    // shard: no op is asked to compute a batch of 0 (oneDNN's convolutions
    // die of SIGFPE building one).
    virtual bool runs_on_empty_shard(const Pass& /*pass*/) const { return false; }

    // Whether the layer's device work in training takes Pass::step as an
    // argument (dropout's masks): a CUDA Graph of one step would replay its
    // masks (train/step_graph_request.h).
    virtual bool draws_per_step() const { return false; }
};

}  // namespace dp
