#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/precision.h"
#include "data/dataset.h"
#include "devices/device.h"
#include "nn/sequential.h"
#include "parallel/gradient_reducer.h"
#include "train/train_observer.h"

namespace dp {

// One model replica on one device: its backend, its model (parameters,
// gradients, activations) and its batch buffers. Construct and use it on the
// device's thread only.
class Replica {
public:
    // `max_rows`: the largest micro-batch; `micro_batches`: how many make a
    // shard (gradient accumulation, TrainConfig::accumulate).
    // `gathered_rows`: a DataParallel replica's room for the largest global
    // batch's outputs (train_step_dataparallel); 0 for ring and naive.
    // `slowdown`: above 1, a straggler's factor (config/slow_devices.h).
    Replica(const DeviceInfo& device, const std::string& model, const SampleShape& input,
            int classes, int max_rows, std::uint64_t seed, int micro_batches = 1,
            Precision precision = Precision::fp32, int gathered_rows = 0, double slowdown = 1);

    // One training step on this device's shard of a global batch: forward,
    // loss summed over the shard with gradients scaled by 1/global_batch,
    // backward with bucketed all-reduce, SGD update. With micro-batches, the
    // shard goes through forward and backward in that many parts whose
    // gradients add up before the one all-reduce. A shard of 0 rows still
    // joins every collective, with zero gradients. A straggler (slowdown
    // above 1) holds its buckets back until backward ends, then waits
    // (slowdown - 1) times its forward and backward before it reduces them.
    // `pass` describes the shard: its rows, step and offset in the global batch.
    // `weight_decay` joins the gradients after their all-reduce, as PyTorch's
    // SGD adds it after DDP's.
    DeviceStepTiming train_step(const Dataset& set, std::span<const int> shard, const Pass& pass,
                                float lr, GradientReducer& reducer, Backend::LossResult& loss,
                                float weight_decay = 0);

    // One step as nn.DataParallel takes it (the replica was built with
    // gathered_rows >= the global batch): forward on this replica's shard
    // (`pass.first_sample` is its offset in `batch`, the whole global batch);
    // the outputs gathered to rank 0, which computes the loss of the whole
    // batch (into `loss`; the other ranks' stays 0) and scatters the outputs'
    // gradients back; backward; the gradients summed on rank 0, which alone
    // updates; then rank 0's parameters and buffers broadcast to every
    // replica. Per row the same loss, gradients and update as train_step, so
    // the same maths. Micro-batches are not supported (ReplicaGroup refuses them).
    // A straggler waits before each collective that follows its compute:
    // (slowdown - 1) times its forward before the gather, times its
    // backward before the gradient sum.
    DeviceStepTiming train_step_dataparallel(const Dataset& set, std::span<const int> batch,
                                             const Pass& pass, float lr, Communicator& communicator,
                                             Backend::LossResult& loss, float weight_decay = 0);

    // Test samples [first, first + count) of `set` in one evaluation pass:
    // how many the model classifies correctly and their summed loss (the
    // training loss, cross-entropy of the logits, without gradients).
    Backend::LossResult evaluate(const Dataset& set, int first, int count);

    // The model's class (its largest output) for samples [first, first + count) of `set`.
    std::vector<int> predict(const Dataset& set, int first, int count);

    // Sums host `values` over every rank's call, through device memory as
    // every communicator takes it: for numbers like loss sums and counts.
    void all_reduce_host(Communicator& communicator, int rank, std::span<float> values);

    Sequential& model() { return *model_; }
    // accumulated_ = gradients (the first micro-batch), else accumulated_ += gradients.
    void add_gradients_into_accumulated(ParameterStore& parameters, bool first);
    Backend& backend() { return *backend_; }

private:
    void load(const Dataset& set, std::span<const int> indices);
    // Loads samples [first, first + rows) of `set` (rows <= max_rows) and
    // returns the model's outputs for them in evaluation mode.
    const float* forward_samples(const Dataset& set, int first, int rows);
    // The model's loss of the loaded labels; see Backend::softmax_cross_entropy.
    Backend::LossResult compute_loss(const float* outputs, int rows, const float* labels,
                                     float* doutputs, float grad_scale);
    // Rank 0 of a DataParallel step: the loss of the `rows` gathered outputs
    // against the labels of `batch`, their gradients into gathered_doutputs_.
    Backend::LossResult gathered_loss(const Dataset& set, std::span<const int> batch);
    // SGD on this replica's parameters, weight decay joining the gradients first.
    void update(float lr, float weight_decay);

    std::unique_ptr<Backend> backend_;
    std::unique_ptr<Sequential> model_;
    int max_rows_;
    int micro_batches_;
    double slowdown_;
    DeviceBuffer accumulated_{nullptr, nullptr};  // the micro-batches' gradients so far
    std::vector<float> host_images_;
    std::vector<std::int32_t> host_labels_;
    std::vector<int> eval_indices_;
    DeviceBuffer images_, labels_, dlogits_;
    // DataParallel: every rank's outputs (and their gradients, labels) for a global batch.
    std::vector<std::int32_t> host_gathered_labels_;
    DeviceBuffer gathered_outputs_{nullptr, nullptr}, gathered_doutputs_{nullptr, nullptr},
        gathered_labels_{nullptr, nullptr};
};

}  // namespace dp
