#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/op_clock.h"
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
    // `wrap`: a decorator for the device's backend (the per-op timer, a
    // test's counting backend), or none.
    Replica(const DeviceInfo& device, const std::string& model, const SampleShape& input,
            int classes, int max_rows, std::uint64_t seed, int micro_batches = 1,
            Precision precision = Precision::fp32, int gathered_rows = 0, double slowdown = 1,
            const std::function<std::unique_ptr<Backend>(std::unique_ptr<Backend>)>& wrap = {});

    // Makes `set` resident on the device (once per set) and uploads the
    // epoch's `order` of its samples: a training step whose shard lies in
    // `order` (a subspan of it, which must stay unchanged while its steps
    // run) then gathers its batch on the device (Backend::gather_rows)
    // instead of on the host. Throws std::out_of_range for an index outside the set.
    void start_epoch(const Dataset& set, std::span<const int> order);

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
    // SGD adds it after DDP's. The shard's loss sum and correct count are
    // added on the device to the sums take_loss() reads. The step never
    // waits for the device (issue 40) but for a straggler's simulated wait;
    // its phases are timed by marks in the backend's queue, which
    // step_timing() reads after it. Its device work goes to the backend in one
    // Backend::run_step, which CUDA with DP_CUDA_GRAPHS=1 captures and
    // replays where step_graph_request() allows it (one replica, the batch
    // gathered on the device, no dropout, no straggler; not a step the per-op
    // timer times).
    void train_step(const Dataset& set, std::span<const int> shard, const Pass& pass, float lr,
                    GradientReducer& reducer, float weight_decay = 0);

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
    // Rank 0 adds the batch's loss to the sums take_loss() reads. This step
    // waits for the device after each phase by design: nn.DataParallel's
    // step is a chain of host-driven gathers and broadcasts.
    void train_step_dataparallel(const Dataset& set, std::span<const int> batch, const Pass& pass,
                                 float lr, Communicator& communicator, float weight_decay = 0);

    // The last step's phases, read from the backend's clock: on a GPU the
    // wait for the step's last event, outside the step, so that the step's
    // work can be captured whole (a CUDA Graph) and queued without a wait.
    DeviceStepTiming step_timing();

    // The loss sum and correct count of the training steps since the last
    // take (a read of device memory: a wait for the device on a GPU).
    Backend::LossResult take_loss() { return backend_->take_loss_totals(loss_totals_.get()); }

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
    // The samples `indices` of `set` into images_ and labels_: gathered on
    // the device when they lie in the epoch's order (start_epoch), else on the host and uploaded.
    void load(const Dataset& set, std::span<const int> indices);
    // Whether `indices` lie in the epoch's order of the resident `set` (start_epoch).
    bool in_epoch_order(const Dataset& set, std::span<const int> indices) const;
    // `count` samples of the resident set into images_ and labels_, by the
    // float indices at `order` in device memory.
    void gather_resident(std::size_t sample_floats, const float* order, std::size_t count);
    // A training step's shard: its indices copied to step_indices_ when it
    // lies in the epoch's order (then true: the step gathers from there),
    // else false (each micro-batch is loaded from the host).
    bool stage_shard(const Dataset& set, std::span<const int> shard);
    // Whether start_epoch made `set`, as it is now, resident.
    bool is_resident(const Dataset& set) const;
    // Loads samples [first, first + rows) of `set` (rows <= max_rows) and
    // returns the model's outputs for them in evaluation mode.
    const float* forward_samples(const Dataset& set, int first, int rows);
    // The model's loss of the loaded labels; see Backend::softmax_cross_entropy.
    Backend::LossResult compute_loss(const float* outputs, int rows, const float* labels,
                                     float* doutputs, float grad_scale);
    // The training loss of `rows` outputs added to the loss sums, their
    // gradients (scaled by grad_scale) into doutputs.
    void add_loss(const float* outputs, int rows, const float* labels, float* doutputs,
                  float grad_scale);
    // Rank 0 of a DataParallel step: the loss of the `rows` gathered outputs
    // against the labels of `batch` added to the sums, their gradients into gathered_doutputs_.
    void add_gathered_loss(const Dataset& set, std::span<const int> batch);
    // SGD on this replica's parameters, weight decay joining the gradients first.
    void update(float lr, float weight_decay);

    std::unique_ptr<Backend> backend_;
    std::unique_ptr<Sequential> model_;
    int max_rows_;
    int micro_batches_;
    double slowdown_;
    // The step's phases, timed in the backend's queue.
    std::unique_ptr<OpClock> phase_clock_;
    PhaseLaps laps_;
    double untimed_ = 0;  // where the laps no phase counts (a straggler's wait) go
    DeviceStepTiming timing_;  // the last step's; its laps resolved by step_timing()
    bool allreduce_in_backward_ = false;  // timing_.backward still holds the all-reduce wait
    DeviceBuffer loss_totals_;  // Backend::kLossTotalsFloats: the sums take_loss() reads
    // The resident training set (start_epoch) and the epoch's order on the device.
    const Dataset* resident_set_ = nullptr;
    const float* resident_images_source_ = nullptr;  // resident_set_'s images when made resident
    DeviceBuffer resident_images_{nullptr, nullptr}, resident_labels_{nullptr, nullptr},
        epoch_order_{nullptr, nullptr};
    std::span<const int> epoch_order_host_;
    DeviceBuffer accumulated_{nullptr, nullptr};  // the micro-batches' gradients so far
    std::vector<float> host_images_;
    std::vector<std::int32_t> host_labels_;
    std::vector<int> eval_indices_;
    DeviceBuffer images_, labels_, dlogits_;
    // The step's shard of the epoch's order, at one address for every step:
    // a CUDA Graph of the step gathers its batch from here.
    DeviceBuffer step_indices_;
    // DataParallel: every rank's outputs (and their gradients, labels) for a global batch.
    std::vector<std::int32_t> host_gathered_labels_;
    DeviceBuffer gathered_outputs_{nullptr, nullptr}, gathered_doutputs_{nullptr, nullptr},
        gathered_labels_{nullptr, nullptr};
};

}  // namespace dp
