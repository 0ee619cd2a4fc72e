#include "train/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "core/error.h"
#include "data/dataset.h"
#include "data/epoch_sampler.h"
#include "devices/device.h"
#include "models/model_registry.h"
#include "train/replica_group.h"
#include "train/training_data.h"

namespace dp {
namespace {

std::string format(const char* pattern, auto... values) {
    char text[256];
    std::snprintf(text, sizeof text, pattern, values...);
    return text;
}

}  // namespace

Trainer::Trainer(TrainConfig config) : config_(std::move(config)) {}

RunOutcome Trainer::run(TrainObserver& observer) {
    try {
        validate(config_);
        observer.on_log("loading " + training_data_source(config_));
        const TrainTestSets data = load_training_data(config_);
        observer.on_log(format("%d training and %d test images", data.train.count,
                               data.test.count));

        const auto devices = select_devices(config_.devices);
        const SampleShape input{data.train.channels, data.train.height, data.train.width};
        ReplicaGroup replicas(devices, config_, input, data.train.classes);
        const int batch_size = config_.batch_size;
        RunSummary summary;
        for (const auto& device : devices) summary.devices.push_back(device.id);
        observer.on_log(format("%s: %zu parameters, global batch %d, lr %g, all-reduce %s, on %s",
                               config_.model.c_str(), replicas.parameter_count(),
                               batch_size, config_.lr, config_.allreduce.c_str(),
                               summary.device_list().c_str()));

        if (!config_.load_path.empty()) {
            replicas.load(config_.load_path, config_.model);
            observer.on_log("loaded " + config_.load_path);
            if (config_.epochs == 0)
                observer.on_log(format("test acc: %.4f (evaluation only)",
                                       replicas.evaluate(data.test)));
        }

        EpochSampler sampler(data.train.count, config_.seed, config_.shuffle);
        const int batches = (data.train.count + batch_size - 1) / batch_size;
        for (int epoch = 1; epoch <= config_.epochs && !stop_requested_; ++epoch) {
            const auto start = std::chrono::steady_clock::now();
            const auto order = sampler.order(epoch - 1);
            Backend::LossResult epoch_loss;
            for (int batch = 0; batch < batches && !stop_requested_; ++batch) {
                const int first = batch * batch_size;
                const int rows = std::min(batch_size, data.train.count - first);
                Backend::LossResult loss;
                auto timings = replicas.train_step(data.train, order.subspan(first, rows),
                                                   config_.lr, loss);
                if (!std::isfinite(loss.loss_sum))
                    throw Error(format("loss became %s at epoch %d, batch %d: lower the learning "
                                       "rate (now %g)",
                                       std::isnan(loss.loss_sum) ? "NaN" : "infinite", epoch,
                                       batch + 1, config_.lr));
                epoch_loss.loss_sum += loss.loss_sum;
                epoch_loss.correct += loss.correct;
                observer.on_step({epoch, batch + 1, std::move(timings)});
                observer.on_batch({epoch, batch + 1, batches, loss.loss_sum / rows});
            }
            const double seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            if (stop_requested_) break;  // a partial epoch is not a measurement

            const double samples = data.train.count;
            const EpochMetrics metrics{epoch, epoch_loss.loss_sum / samples,
                                       double(epoch_loss.correct) / samples,
                                       replicas.evaluate(data.test), seconds};
            summary.epochs.push_back(metrics);
            observer.on_epoch(metrics);
            if (!config_.save_path.empty()) replicas.save(config_.save_path, config_.model);
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
