#include "train/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

#include "backend/onednn/onednn_backend.h"
#include "core/error.h"
#include "data/dataset.h"
#include "data/epoch_sampler.h"
#include "models/model_registry.h"

namespace dp {
namespace {

std::string format(const char* pattern, auto... values) {
    char text[256];
    std::snprintf(text, sizeof text, pattern, values...);
    return text;
}

// A batch on its way to the device: host staging buffers and the device copy.
class BatchBuffers {
public:
    BatchBuffers(Backend& backend, int max_batch, std::size_t sample_size, int classes)
        : sample_size_(sample_size),
          host_images_(max_batch * sample_size),
          host_labels_(max_batch),
          images_(backend.allocate(max_batch * sample_size)),
          labels_(backend.allocate(max_batch)),
          dlogits_(backend.allocate(std::size_t(max_batch) * classes)) {}

    // Gathers `indices` of `set` and copies them to the device.
    void load(Backend& backend, const Dataset& set, std::span<const int> indices) {
        gather_batch(set, indices, host_images_.data(), host_labels_.data());
        backend.upload(host_images_.data(), images_.get(), indices.size() * sample_size_);
        backend.upload_labels(host_labels_.data(), labels_.get(), indices.size());
    }

    const float* images() const { return images_.get(); }
    const float* labels() const { return labels_.get(); }
    float* dlogits() { return dlogits_.get(); }

private:
    std::size_t sample_size_;
    std::vector<float> host_images_;
    std::vector<std::int32_t> host_labels_;
    DeviceBuffer images_, labels_, dlogits_;
};

// Fraction of `set` that `model` classifies correctly.
double evaluate(Sequential& model, BatchBuffers& buffers, const Dataset& set, int batch_size) {
    Backend& backend = model.backend();
    std::vector<int> indices(batch_size);
    std::int64_t correct = 0;
    for (int first = 0; first < set.count; first += batch_size) {
        const int rows = std::min(batch_size, set.count - first);
        for (int i = 0; i < rows; ++i) indices[i] = first + i;
        buffers.load(backend, set, {indices.data(), std::size_t(rows)});
        const float* logits = model.forward(rows, buffers.images());
        correct += backend
                       .softmax_cross_entropy(rows, model.classes(), logits, buffers.labels(),
                                              nullptr, 0.f)
                       .correct;
    }
    return set.count ? double(correct) / set.count : 0;
}

}  // namespace

Trainer::Trainer(TrainConfig config) : config_(std::move(config)) {}

RunOutcome Trainer::run(TrainObserver& observer) {
    try {
        validate(config_);
        const auto dir = config_.data_dir.empty() ? default_fashion_mnist_dir()
                                                  : std::filesystem::path(config_.data_dir);
        observer.on_log("loading " + dir.string());
        const TrainTestSets data = load_mnist_format(dir, config_.limit_train, config_.limit_test);
        observer.on_log(format("%d training and %d test images", data.train.count,
                               data.test.count));

        OneDnnBackend backend;
        const SampleShape input{data.train.channels, data.train.height, data.train.width};
        auto model = build_model(config_.model, input);
        const int batch_size = config_.batch_size;
        model->build(backend, batch_size, config_.seed);
        observer.on_log(format("%s: %zu parameters, batch %d, lr %g, on %s", config_.model.c_str(),
                               model->parameters().total_size(), batch_size, config_.lr,
                               "cpu:0"));

        BatchBuffers buffers(backend, batch_size, input.size(), model->classes());
        EpochSampler sampler(data.train.count, config_.seed, config_.shuffle);
        RunSummary summary;
        summary.devices = {"cpu:0"};
        const int batches = (data.train.count + batch_size - 1) / batch_size;
        const std::size_t parameter_count = model->parameters().total_size();

        for (int epoch = 1; epoch <= config_.epochs && !stop_requested_; ++epoch) {
            const auto start = std::chrono::steady_clock::now();
            const auto order = sampler.order(epoch - 1);
            double loss_sum = 0;
            std::int64_t correct = 0, seen = 0;
            for (int batch = 0; batch < batches && !stop_requested_; ++batch) {
                const int first = batch * batch_size;
                const int rows = std::min(batch_size, data.train.count - first);
                buffers.load(backend, data.train, order.subspan(first, rows));
                const float* logits = model->forward(rows, buffers.images());
                // Loss summed over the batch, gradients scaled by 1/batch: the seeds' mean loss.
                const auto loss = backend.softmax_cross_entropy(
                    rows, model->classes(), logits, buffers.labels(), buffers.dlogits(),
                    1.f / float(rows));
                if (!std::isfinite(loss.loss_sum))
                    throw Error(format("loss became %s at epoch %d, batch %d: lower the learning "
                                       "rate (now %g)",
                                       std::isnan(loss.loss_sum) ? "NaN" : "infinite", epoch,
                                       batch + 1, config_.lr));
                model->backward(rows, buffers.images(), buffers.dlogits());
                backend.sgd_update(parameter_count, config_.lr, model->parameters().values(),
                                   model->parameters().gradients());
                loss_sum += loss.loss_sum;
                correct += loss.correct;
                seen += rows;
                observer.on_batch({epoch, batch + 1, batches, loss.loss_sum / rows});
            }
            backend.synchronize();
            const double seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            if (stop_requested_) break;  // a partial epoch is not a measurement

            const EpochMetrics metrics{epoch, loss_sum / double(seen), double(correct) / double(seen),
                                       evaluate(*model, buffers, data.test, batch_size), seconds};
            summary.epochs.push_back(metrics);
            observer.on_epoch(metrics);
        }
        observer.on_log(summary.summary_line());
        observer.on_finished(summary);
        return stop_requested_ ? RunOutcome::stopped : RunOutcome::finished;
    } catch (const std::exception& error) {
        observer.on_failed(error.what());
        return RunOutcome::failed;
    }
}

}  // namespace dp
