#include "train/replica.h"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <utility>

#include "backend/backend_factory.h"
#include "data/epoch_sampler.h"
#include "models/model_registry.h"

namespace dp {
namespace {

class Stopwatch {
public:
    // Seconds since the last lap (or construction).
    double lap() {
        const auto now = std::chrono::steady_clock::now();
        return std::chrono::duration<double>(now - std::exchange(last_, now)).count();
    }

private:
    std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

}  // namespace

Replica::Replica(const DeviceInfo& device, const std::string& model, const SampleShape& input,
                 int classes, int max_rows, std::uint64_t seed)
    : backend_(make_backend(device)),
      model_(build_model(model, input, classes)),
      max_rows_(max_rows),
      host_images_(std::size_t(max_rows) * input.size()),
      host_labels_(max_rows),
      eval_indices_(max_rows),
      images_(backend_->allocate(std::size_t(max_rows) * input.size())),
      labels_(backend_->allocate(max_rows)),
      dlogits_(backend_->allocate(std::size_t(max_rows) * model_->classes())) {
    model_->build(*backend_, max_rows, seed);
}

void Replica::load(const Dataset& set, std::span<const int> indices) {
    gather_batch(set, indices, host_images_.data(), host_labels_.data());
    backend_->upload(host_images_.data(), images_.get(), indices.size() * set.sample_size());
    backend_->upload_labels(host_labels_.data(), labels_.get(), indices.size());
}

Backend::LossResult Replica::compute_loss(const float* outputs, int rows, float* doutputs,
                                         float grad_scale) {
    const auto loss = model_->loss() == Sequential::Loss::nll ? &Backend::nll_loss
                                                              : &Backend::softmax_cross_entropy;
    return (backend_.get()->*loss)(rows, model_->classes(), outputs, labels_.get(), doutputs,
                                   grad_scale);
}

DeviceStepTiming Replica::train_step(const Dataset& set, std::span<const int> shard,
                                     const Pass& pass, float lr, GradientReducer& reducer,
                                     Backend::LossResult& loss) {
    const int rows = pass.batch;
    DeviceStepTiming timing;
    timing.shard = rows;
    Stopwatch watch;
    reducer.begin_step();
    ParameterStore& parameters = model_->parameters();
    if (rows == 0 && !pass.sync_batch_norm) {
        loss = {};
        backend_->fill(parameters.gradients(), parameters.total_size(), 0.f);
    } else {  // an empty shard still joins synchronized BatchNorm's collectives
        load(set, shard);
        timing.data = watch.lap();
        const float* logits = model_->forward(pass, images_.get());
        loss = compute_loss(logits, rows, dlogits_.get(), 1.f / float(pass.global_batch));
        timing.forward = watch.lap();
        model_->backward(pass, images_.get(), dlogits_.get(),
                         [&](std::size_t first) { reducer.on_gradients_final(first); });
    }
    reducer.finish_step();
    backend_->synchronize();
    timing.allreduce = reducer.seconds();
    timing.backward = watch.lap() - timing.allreduce;
    backend_->sgd_update(parameters.total_size(), lr, parameters.values(), parameters.gradients());
    backend_->synchronize();
    timing.update = watch.lap();
    return timing;
}

const float* Replica::forward_samples(const Dataset& set, int first, int rows) {
    std::iota(eval_indices_.begin(), eval_indices_.begin() + rows, first);
    load(set, {eval_indices_.data(), std::size_t(rows)});
    return model_->forward({.batch = rows, .training = false}, images_.get());
}

std::int64_t Replica::count_correct(const Dataset& set, int first, int count) {
    std::int64_t correct = 0;
    for (int offset = 0; offset < count; offset += max_rows_) {
        const int rows = std::min(max_rows_, count - offset);
        const float* logits = forward_samples(set, first + offset, rows);
        correct += compute_loss(logits, rows, nullptr, 0.f).correct;
    }
    return correct;
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
