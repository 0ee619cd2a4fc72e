#include "train/replica.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

#include "backend/backend_factory.h"
#include "data/epoch_sampler.h"
#include "models/model_registry.h"
#include "parallel/batch_split.h"
#include "train/step_graph_request.h"
#include "train/straggler_wait.h"

namespace dp {
namespace {

// The laps of a step of `micro_batches`: per micro-batch its data, forward
// and backward; a straggler's two; the all-reduce's and the update's; and
// DataParallel's seven.
std::size_t max_laps(int micro_batches) { return 3 * std::size_t(micro_batches) + 8; }

// Float indices (Backend::gather_rows) are exact below 2^24.
constexpr int kMaxResidentSamples = 1 << 24;

}  // namespace

Replica::Replica(const DeviceInfo& device, const std::string& model, const SampleShape& input,
                 int classes, int max_rows, std::uint64_t seed, int micro_batches,
                 Precision precision, int gathered_rows, double slowdown,
                 const std::function<std::unique_ptr<Backend>(std::unique_ptr<Backend>)>& wrap)
    : backend_(wrap ? wrap(make_backend(device, precision)) : make_backend(device, precision)),
      model_(build_model(model, input, classes)),
      max_rows_(max_rows),
      micro_batches_(micro_batches),
      slowdown_(slowdown),
      phase_clock_(backend_->make_op_clock(max_laps(micro_batches) + 1)),
      laps_(*phase_clock_, max_laps(micro_batches)),
      loss_totals_(backend_->allocate(Backend::kLossTotalsFloats)),
      host_images_(std::size_t(max_rows) * input.size()),
      host_labels_(max_rows),
      eval_indices_(max_rows),
      images_(backend_->allocate(std::size_t(max_rows) * input.size())),
      labels_(backend_->allocate(max_rows)),
      dlogits_(backend_->allocate(std::size_t(max_rows) * model_->classes())),
      step_indices_(backend_->allocate(std::size_t(max_rows) * std::size_t(micro_batches))) {
    model_->build(*backend_, max_rows, seed);
    if (micro_batches > 1) accumulated_ = backend_->allocate(model_->parameters().total_size());
    if (gathered_rows > 0) {
        const std::size_t outputs = std::size_t(gathered_rows) * model_->classes();
        host_gathered_labels_.resize(std::size_t(gathered_rows));
        gathered_outputs_ = backend_->allocate(outputs);
        gathered_doutputs_ = backend_->allocate(outputs);
        gathered_labels_ = backend_->allocate(std::size_t(gathered_rows));
    }
}

void Replica::start_epoch(const Dataset& set, std::span<const int> order) {
    for (const int index : order)
        if (index < 0 || index >= set.count)
            throw std::out_of_range("epoch order: index " + std::to_string(index) +
                                    " outside a set of " + std::to_string(set.count));
    epoch_order_host_ = {};
    if (set.count > kMaxResidentSamples) return;  // gathered on the host, as before
    if (!is_resident(set)) {
        resident_images_ = backend_->resident_copy(set.images.data(), set.images.size());
        resident_labels_ = backend_->allocate(std::size_t(set.count));
        backend_->upload_labels(set.labels.data(), resident_labels_.get(), std::size_t(set.count));
        epoch_order_ = backend_->allocate(std::size_t(set.count));
        resident_set_ = &set;
        resident_images_source_ = set.images.data();
    }
    // As float indices, the labels' format: exact below 2^24.
    backend_->upload_labels(order.data(), epoch_order_.get(),
                            std::min(order.size(), std::size_t(set.count)));
    epoch_order_host_ = order.first(std::min(order.size(), std::size_t(set.count)));
}

bool Replica::is_resident(const Dataset& set) const {
    // The same set, its images not moved (on a CPU the resident images are the set's own).
    return &set == resident_set_ && set.images.data() == resident_images_source_;
}

bool Replica::in_epoch_order(const Dataset& set, std::span<const int> indices) const {
    const std::less_equal<const int*> not_after;
    return is_resident(set) && !epoch_order_host_.empty() &&
           not_after(epoch_order_host_.data(), indices.data()) &&
           not_after(indices.data() + indices.size(),
                     epoch_order_host_.data() + epoch_order_host_.size());
}

void Replica::gather_resident(std::size_t sample_floats, const float* order, std::size_t count) {
    backend_->gather_rows(resident_images_.get(), sample_floats, order, count, images_.get());
    backend_->gather_rows(resident_labels_.get(), 1, order, count, labels_.get());
}

void Replica::load(const Dataset& set, std::span<const int> indices) {
    if (in_epoch_order(set, indices)) {
        gather_resident(set.sample_size(),
                        epoch_order_.get() + (indices.data() - epoch_order_host_.data()),
                        indices.size());
        return;
    }
    gather_batch(set, indices, host_images_.data(), host_labels_.data());
    backend_->upload(host_images_.data(), images_.get(), indices.size() * set.sample_size());
    backend_->upload_labels(host_labels_.data(), labels_.get(), indices.size());
}

bool Replica::stage_shard(const Dataset& set, std::span<const int> shard) {
    if (!in_epoch_order(set, shard)) return false;
    if (!shard.empty())
        backend_->copy(shard.size(), epoch_order_.get() + (shard.data() - epoch_order_host_.data()),
                       step_indices_.get());
    return true;
}

Backend::LossResult Replica::compute_loss(const float* outputs, int rows, const float* labels,
                                         float* doutputs, float grad_scale) {
    const auto loss = model_->loss() == Sequential::Loss::nll ? &Backend::nll_loss
                                                              : &Backend::softmax_cross_entropy;
    return (backend_.get()->*loss)(rows, model_->classes(), outputs, labels, doutputs, grad_scale);
}

void Replica::add_loss(const float* outputs, int rows, const float* labels, float* doutputs,
                       float grad_scale) {
    const auto kind = model_->loss() == Sequential::Loss::nll
                          ? Backend::LossKind::nll
                          : Backend::LossKind::softmax_cross_entropy;
    backend_->add_loss_to_totals(kind, rows, model_->classes(), outputs, labels, doutputs,
                                 grad_scale, loss_totals_.get());
}

void Replica::train_step(const Dataset& set, std::span<const int> shard, const Pass& pass,
                         float lr, GradientReducer& reducer, float weight_decay) {
    const int rows = pass.batch;
    DeviceStepTiming& timing = timing_;
    timing = {.shard = rows};
    ParameterStore& parameters = model_->parameters();
    double& backward = timing.backward;  // with the wait for the all-reduce until step_timing()
    // A straggler reduces no bucket before its wait: the others then wait
    // for it in the all-reduce, as they would for a slower device.
    const bool straggler = slowdown_ > 1;
    // An empty shard still joins synchronized BatchNorm's collectives.
    const int micro_batches =
        rows > 0 || pass.sync_batch_norm ? std::clamp(rows, 1, micro_batches_) : 0;
    // The batch's indices at a fixed address (step_indices_), outside the
    // work: a graph replays the addresses it captured.
    const bool staged = stage_shard(set, shard);
    // The laps' phases, noted before the work that marks them (PhaseLaps):
    // per micro-batch its data, forward and backward (the last one's with
    // the all-reduce's wait), an empty shard's backward, a straggler's wait,
    // the update.
    laps_.start();
    for (int m = 0; m < micro_batches; ++m) {
        laps_.plan(timing.data);
        laps_.plan(timing.forward);
        laps_.plan(backward);
    }
    if (micro_batches == 0) laps_.plan(backward);
    if (straggler) {
        laps_.plan(untimed_);
        laps_.plan(backward);
    }
    laps_.plan(timing.update);
    reducer.begin_step();
    // The step's device work, which a backend may capture and replay
    // (Backend::run_step): nothing in it may leave host state that the step
    // needs later, since a replay runs none of it and a failed capture runs it twice.
    auto work = [&] {
        std::size_t lap = 0;
        const auto mark_lap = [&] { laps_.mark(++lap); };
        if (micro_batches == 0) backend_->fill(parameters.gradients(), parameters.total_size(), 0.f);
        for (int m = 0; m < micro_batches; ++m) {
            const BatchShard micro = batch_shard(rows, micro_batches, m);
            Pass micro_pass = pass;
            micro_pass.batch = micro.rows;
            micro_pass.first_sample = pass.first_sample + std::uint64_t(micro.offset);
            if (staged)
                gather_resident(set.sample_size(), step_indices_.get() + micro.offset,
                                std::size_t(micro.rows));
            else
                load(set, shard.subspan(std::size_t(micro.offset), std::size_t(micro.rows)));
            mark_lap();
            const float* logits = model_->forward(micro_pass, images_.get());
            // An empty shard has no loss, and its backward reads no dlogits.
            if (micro.rows > 0)
                add_loss(logits, micro.rows, labels_.get(), dlogits_.get(),
                         1.f / float(pass.global_batch));
            mark_lap();
            if (m + 1 < micro_batches) {
                model_->backward(micro_pass, images_.get(), dlogits_.get());
                add_gradients_into_accumulated(parameters, /*first=*/m == 0);
                mark_lap();
                continue;
            }
            // The last micro-batch: as each layer's gradients become final,
            // the earlier micro-batches' sum joins them before their bucket's
            // all-reduce starts, so communication overlaps backward as without
            // accumulation.
            std::size_t folded_from = parameters.total_size();
            const auto fold_and_reduce = [&](std::size_t first) {
                if (micro_batches > 1) {
                    const std::size_t begin = parameters.infos()[first].offset;
                    // gradients[begin, end) += accumulated[begin, end): sgd_update
                    // subtracts lr x its second argument, so lr -1 adds it.
                    backend_->sgd_update(folded_from - begin, -1.f, parameters.gradients() + begin,
                                         accumulated_.get() + begin);
                    folded_from = begin;
                }
                if (!straggler) reducer.on_gradients_final(first);
            };
            // By reference: a std::function holding this lambda's captures
            // would allocate, and a step allocates nothing.
            model_->backward(micro_pass, images_.get(), dlogits_.get(), std::ref(fold_and_reduce));
            if (micro_batches > 1 && folded_from > 0)  // parameters no layer reported final
                backend_->sgd_update(folded_from, -1.f, parameters.gradients(), accumulated_.get());
        }
        if (straggler) {
            // The one wait for the device inside a step, by design: a simulated
            // slower device waits in host time for a multiple of its own compute.
            backend_->synchronize();
            mark_lap();
            laps_.resolve(lap);
            timing.straggler_wait = wait_as_straggler(slowdown_, timing.forward + backward);
            mark_lap();
        }
        reducer.finish_step();
        mark_lap();
        update(lr, weight_decay);
        mark_lap();
    };
    const ReplicaStep step{.world = reducer.ranks(),
                           .straggler = straggler,
                           .draws_per_step = model_->draws_per_step(),
                           .batch_on_device = staged,
                           .rows = rows,
                           .global_batch = pass.global_batch,
                           .micro_batches = micro_batches,
                           .lr = lr,
                           .weight_decay = weight_decay,
                           .step = pass.step,
                           .buffers = {resident_images_.get(), resident_labels_.get(),
                                       step_indices_.get(), images_.get(), labels_.get(),
                                       dlogits_.get(), parameters.values(), loss_totals_.get()}};
    backend_->run_step(step_graph_request(step), work);
    timing.allreduce = reducer.seconds();
    allreduce_in_backward_ = true;
}

DeviceStepTiming Replica::step_timing() {
    laps_.resolve();
    if (std::exchange(allreduce_in_backward_, false)) timing_.backward -= timing_.allreduce;
    return timing_;
}

void Replica::update(float lr, float weight_decay) {
    ParameterStore& parameters = model_->parameters();
    // gradients += weight_decay x parameters (sgd_update subtracts lr x its
    // second argument, so lr -weight_decay adds it); skipped at 0, so runs
    // without weight decay keep their bits.
    if (weight_decay != 0)
        backend_->sgd_update(parameters.total_size(), -weight_decay, parameters.gradients(),
                             parameters.values());
    backend_->sgd_update(parameters.total_size(), lr, parameters.values(), parameters.gradients());
}

void Replica::add_gathered_loss(const Dataset& set, std::span<const int> batch) {
    for (std::size_t i = 0; i < batch.size(); ++i)
        host_gathered_labels_[i] = set.labels[std::size_t(batch[i])];
    backend_->upload_labels(host_gathered_labels_.data(), gathered_labels_.get(), batch.size());
    const int rows = int(batch.size());
    add_loss(gathered_outputs_.get(), rows, gathered_labels_.get(), gathered_doutputs_.get(),
             1.f / float(rows));
}

void Replica::train_step_dataparallel(const Dataset& set, std::span<const int> batch,
                                      const Pass& pass, float lr, Communicator& communicator,
                                      float weight_decay) {
    const int rows = pass.batch, classes = model_->classes();
    const std::size_t offset = pass.first_sample * std::size_t(classes);
    const std::size_t outputs = batch.size() * std::size_t(classes);
    ParameterStore& parameters = model_->parameters();
    DeviceStepTiming& timing = timing_;
    timing = {.shard = rows};
    laps_.start();
    // Zeros elsewhere, so that the sum on rank 0 is every rank's rows exactly.
    backend_->fill(gathered_outputs_.get(), outputs, 0.f);
    const float* logits = nullptr;
    // An empty shard still joins synchronized BatchNorm's collectives, on 0 samples.
    const bool runs_model = rows > 0 || pass.sync_batch_norm;
    if (runs_model) {
        load(set, batch.subspan(std::size_t(pass.first_sample), std::size_t(rows)));
        laps_.lap(timing.data);
        logits = model_->forward(pass, images_.get());
        backend_->copy(std::size_t(rows) * classes, logits, gathered_outputs_.get() + offset);
        backend_->synchronize();
        laps_.lap(timing.forward);
        laps_.resolve();
        timing.straggler_wait = wait_as_straggler(slowdown_, timing.forward);
        laps_.lap(untimed_);
    }
    // The gather to device 0: a reduce of the zero-padded batch x classes
    // outputs (each rank's rows are its own), the sum naive's all-reduce
    // makes on device 0, without its copy back.
    communicator.reduce_sum(pass.rank, gathered_outputs_.get(), outputs, 0);
    if (pass.rank == 0) add_gathered_loss(set, batch);
    communicator.broadcast(pass.rank, gathered_doutputs_.get(), outputs, 0);
    backend_->synchronize();
    laps_.lap(timing.gather);
    if (runs_model)
        model_->backward(pass, images_.get(), gathered_doutputs_.get() + offset);
    else
        backend_->fill(parameters.gradients(), parameters.total_size(), 0.f);
    backend_->synchronize();
    laps_.lap(timing.backward);
    laps_.resolve();
    timing.straggler_wait += wait_as_straggler(slowdown_, timing.backward);
    laps_.lap(untimed_);
    // The gradients summed on device 0 alone: only it updates.
    communicator.reduce_sum(pass.rank, parameters.gradients(), parameters.total_size(), 0);
    backend_->synchronize();
    laps_.lap(timing.allreduce);
    if (pass.rank == 0) update(lr, weight_decay);  // the others wait in the broadcast
    backend_->synchronize();
    laps_.lap(timing.update);
    communicator.broadcast(pass.rank, parameters.values(), parameters.total_size(), 0);
    if (parameters.buffers_size() > 0)  // BatchNorm's running statistics, as DataParallel's
        communicator.broadcast(pass.rank, parameters.buffers(), parameters.buffers_size(), 0);
    backend_->synchronize();
    laps_.lap(timing.broadcast);
}

void Replica::add_gradients_into_accumulated(ParameterStore& parameters, bool first) {
    const std::size_t n = parameters.total_size();
    if (first)
        backend_->copy(n, parameters.gradients(), accumulated_.get());
    else  // accumulated += gradients (lr -1: see train_step)
        backend_->sgd_update(n, -1.f, accumulated_.get(), parameters.gradients());
}

const float* Replica::forward_samples(const Dataset& set, int first, int rows) {
    std::iota(eval_indices_.begin(), eval_indices_.begin() + rows, first);
    load(set, {eval_indices_.data(), std::size_t(rows)});
    return model_->forward({.batch = rows, .training = false}, images_.get());
}

Backend::LossResult Replica::evaluate(const Dataset& set, int first, int count) {
    Backend::LossResult total;
    for (int offset = 0; offset < count; offset += max_rows_) {
        const int rows = std::min(max_rows_, count - offset);
        const float* logits = forward_samples(set, first + offset, rows);
        const Backend::LossResult rows_result = compute_loss(logits, rows, labels_.get(), nullptr, 0.f);
        total.loss_sum += rows_result.loss_sum;
        total.correct += rows_result.correct;
    }
    return total;
}

std::vector<int> Replica::predict(const Dataset& set, int first, int count) {
    const int classes = model_->classes();
    std::vector<float> outputs(std::size_t(max_rows_) * classes);
    std::vector<int> predicted;
    for (int offset = 0; offset < count; offset += max_rows_) {
        const int rows = std::min(max_rows_, count - offset);
        backend_->download(forward_samples(set, first + offset, rows), outputs.data(),
                           std::size_t(rows) * classes);
        for (int row = 0; row < rows; ++row) {
            const float* scores = outputs.data() + std::size_t(row) * classes;
            predicted.push_back(int(std::max_element(scores, scores + classes) - scores));
        }
    }
    return predicted;
}

void Replica::all_reduce_host(Communicator& communicator, int rank, std::span<float> values) {
    DeviceBuffer staging = backend_->allocate(values.size());
    backend_->upload(values.data(), staging.get(), values.size());
    communicator.all_reduce_sum(rank, staging.get(), values.size());
    backend_->download(staging.get(), values.data(), values.size());
}

}  // namespace dp
