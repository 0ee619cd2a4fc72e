#include "train/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <span>

#include "backend/kernel_choices.h"
#include "core/checked_math.h"
#include "core/error.h"
#include "core/exception_message.h"
#include "core/setting_ref.h"
#include "core/format.h"
#include "data/dataset.h"
#include "data/epoch_sampler.h"
#include "devices/device.h"
#include "models/model_registry.h"
#include "parallel/batch_split.h"
#include "parallel/communicator.h"
#include "train/memory_estimate.h"
#include "train/parameter_drift.h"
#include "train/replica_group.h"
#include "train/step_trace.h"
#include "train/training_data.h"

namespace dp {
namespace {

// The first `count` test images with the model's classes for them and their labels.
PredictionSamples preview_predictions(int epoch, ReplicaGroup& replicas, const Dataset& test,
                                      int count) {
    PredictionSamples samples;
    samples.epoch = epoch;
    samples.channels = test.channels;
    samples.height = test.height;
    samples.width = test.width;
    samples.predicted = replicas.predict(test, count);
    const auto shown = samples.predicted.size();
    samples.images.assign(test.images.begin(),
                          test.images.begin() + std::ptrdiff_t(shown * test.sample_size()));
    samples.labels.assign(test.labels.begin(), test.labels.begin() + std::ptrdiff_t(shown));
    return samples;
}

// The learning rate of `batch` (from 0) of `epoch` (from 1): with warm-up,
// lr x (steps so far + 1) / warm-up steps until that reaches lr (Goyal et al.).
float learning_rate_at(const TrainConfig& config, int epoch, int batch, int batches) {
    if (config.warmup_epochs <= 0) return config.lr;
    const double step = double(epoch - 1) * batches + batch + 1;
    return float(config.lr * std::min(1.0, step / (config.warmup_epochs * batches)));
}

// A comparison's N-vs-1 drift after `epoch`: the 1-device run leaves its
// parameters in snapshot_dir, the others measure theirs against them (NaN
// when this run does neither, or the snapshot is not there).
double parameter_drift_after(const TrainConfig& config, ReplicaGroup& replicas, int epoch) {
    double drift = std::numeric_limits<double>::quiet_NaN();
    if (!replicas.holds_rank0() || (config.snapshot_dir.empty() && config.drift_from.empty()))
        return drift;
    const std::vector<float> parameters = replicas.parameters(0);
    if (!config.snapshot_dir.empty())
        write_parameter_snapshot(epoch_snapshot_path(config.snapshot_dir, epoch), parameters);
    if (!config.drift_from.empty())
        if (const auto reference = read_parameter_snapshot(
                epoch_snapshot_path(config.drift_from, epoch), parameters.size()))
            drift = relative_norm_difference(parameters, *reference);
    return drift;
}

// Sums a step's phases into the run's totals (sized on the first step, then
// no allocation).
void add_step_timings(RunSummary& summary, std::span<const DeviceStepTiming> timings) {
    summary.step_totals.resize(timings.size());
    for (std::size_t d = 0; d < timings.size(); ++d) summary.step_totals[d] += timings[d];
    ++summary.steps;
}

// How often, in steps, the parameters are checked for NaN and infinite
// values (and at every epoch's end, before evaluation and the checkpoint): a
// copy and a scan of the weights, small beside 50 steps, and soon enough that
// a diverged run stops within seconds.
constexpr int kParameterCheckSteps = 50;

// Throws when an update left NaN or infinite weights: the run has diverged,
// and going on would only spread them into the checkpoint.
void require_finite_parameters(ReplicaGroup& replicas, int epoch, int batch, float lr) {
    if (const NonFiniteValues bad = replicas.non_finite_parameters())
        throw Error(format("training diverged at epoch %d, batch %d: the weights hold %s; "
                           "lower the learning rate (now %g)",
                           epoch, batch, bad.describe().c_str(), double(lr)));
}

// Refuses, before anything is allocated for training, a run whose estimated
// memory exceeds what this machine has free. `replica_config` is the run's,
// its batch the largest the replicas will see.
void require_run_fits(const TrainConfig& replica_config, const TrainTestSets& data, int world,
                      int local_replicas, bool on_host) {
    if (!on_host) return;  // GPU replicas live in device memory
    const SampleShape input{data.train.channels, data.train.height, data.train.width};
    const MemoryEstimate estimate{
        .data_bytes = data_set_bytes(std::size_t(data.train.count) + std::size_t(data.test.count),
                                     data.train.sample_size()),
        .replica_bytes = replica_bytes(replica_config, input, data.train.classes,
                                       batch_shard(replica_config.batch_size, world, 0).rows),
        .replicas = local_replicas};
    require_memory(estimate, available_host_memory());
}

// The random data set is generated in memory: refused before it is, if it
// cannot fit (IDX files are bounded by their reader).
void require_generated_data_fits(const TrainConfig& config) {
    if (config.dataset != "random") return;
    const MemoryEstimate estimate{
        .data_bytes = 2 * data_set_bytes(std::size_t(config.samples), std::size_t(config.input_size))};
    require_memory(estimate, available_host_memory());
}

}  // namespace

Trainer::Trainer(TrainConfig config) : config_(std::move(config)) {}

Trainer::Trainer(TrainConfig config, std::vector<DeviceInfo> devices)
    : config_(std::move(config)), devices_(std::move(devices)) {}

Trainer::Trainer(TrainConfig config, std::vector<DeviceInfo> devices, ProcessPart part)
    : config_(std::move(config)), devices_(std::move(devices)), part_(std::move(part)) {}

RunOutcome Trainer::run(TrainObserver& observer) {
    try {
        std::vector<DeviceInfo> devices;
        if (devices_) {
            validate(config_, *devices_);
            devices = *devices_;
        } else {
            devices = validate_and_select_devices(config_);
        }
        KernelChoices& kernels = kernel_choices();
        kernels.retune(config_.retune);
        auto communicator = part_ ? std::move(part_->communicator)
                                  : make_local_communicator(devices, config_.allreduce,
                                                            config_.collective_timeout_s);
        if (!communicator) throw Error("a multi-process Trainer runs once");
        const std::string allreduce = communicator->name();
        validate_ranks(config_, communicator->size());

        observer.on_log("loading " + training_data_source(config_));
        require_generated_data_fits(config_);
        const TrainTestSets data = load_training_data(config_);
        observer.on_log(format("%d training and %d test images", data.train.count,
                               data.test.count));
        if (part_ && part_->check_same_data) part_->check_same_data(data_fingerprint(config_, data));
        const SampleShape input{data.train.channels, data.train.height, data.train.width};
        require_model_takes_data(config_, input, data.train.classes);
        // A batch larger than the training set is one batch of all of it (as
        // a PyTorch DataLoader gives): the replicas allocate for that, not for
        // the batch size asked (--batch-size 10000000 on 256 images).
        TrainConfig replica_config = config_;
        if (config_.batch_size > data.train.count) {
            replica_config.batch_size = data.train.count;
            validate_training_samples(config_, data.train.count, communicator->size());
            observer.on_log(format("batch size %d is more than the %d training samples: each "
                                   "epoch is one batch of all %d",
                                   config_.batch_size, data.train.count, data.train.count));
        }
        require_run_fits(replica_config, data, communicator->size(), int(devices.size()),
                         devices.front().kind == DeviceKind::cpu);

        ReplicaGroup replicas(devices, std::move(communicator), part_ ? part_->first_rank : 0,
                              replica_config, input, data.train.classes);
        const int batch_size = config_.batch_size;
        RunSummary summary;
        if (part_) summary.devices = part_->rank_devices;
        else for (const auto& device : devices) summary.devices.push_back(device.id);
        observer.on_log(format("%s: %zu parameters, global batch %d, lr %g, all-reduce %s, %s, "
                               "on %s",
                               config_.model.c_str(), replicas.parameter_count(),
                               batch_size, config_.lr,
                               allreduce.c_str(), config_.precision.c_str(),
                               summary.device_list().c_str()));

        if (!config_.load_path.empty()) {
            replicas.load(config_.load_path, config_.model);
            observer.on_log("loaded " + config_.load_path);
            if (config_.epochs == 0)
                observer.on_log(format("test acc: %.4f (evaluation only)",
                                       replicas.evaluate(data.test)));
        }

        // Every rank draws the same permutation and trains its share of each
        // global batch, so the run sees the samples and global batches of a
        // one-process run whatever the number of processes.
        EpochSampler sampler(data.train.count, config_.seed, config_.shuffle);
        const int batches = ceil_div(data.train.count, batch_size);
        // Reused every step, so the step loop allocates nothing.
        StepReport step_report{.devices = std::vector<DeviceStepTiming>(replicas.size())};
        // This process's devices; rank 0's process writes it.
        std::optional<StepTrace> trace;
        if (!config_.trace_path.empty() && replicas.holds_rank0())
            trace.emplace(std::vector<std::string>(summary.devices.begin(),
                                                   summary.devices.begin() + replicas.size()),
                          std::size_t(batches));
        // Asked before each step. The processes of a multi-process run stop
        // at the same step (a signal mpirun relays reaches them one by one):
        // one that stopped alone would leave the others waiting in the next
        // collective.
        bool stopped = false;
        const auto stop_now = [&] {
            if (!part_) return stopped = stop_requested_;
            double asked[] = {stop_requested_ ? 1.0 : 0.0};
            replicas.sum_over_processes(asked);
            return stopped = asked[0] > 0;
        };
        for (int epoch = 1; epoch <= config_.epochs && !stopped; ++epoch) {
            const auto start = std::chrono::steady_clock::now();
            const auto order = sampler.order(epoch - 1);
            if (trace) trace->start_epoch();
            Backend::LossResult epoch_loss;  // this process's shards
            for (int batch = 0; batch < batches && !stop_now(); ++batch) {
                const int first = batch * batch_size;
                const int rows = std::min(batch_size, data.train.count - first);
                Backend::LossResult loss;
                const float lr = learning_rate_at(config_, epoch, batch, batches);
                const auto timings = replicas.train_step(data.train, order.subspan(first, rows),
                                                         lr, loss);
                if (!std::isfinite(loss.loss_sum))
                    throw Error(format("loss became %s at epoch %d, batch %d: lower the learning "
                                       "rate (now %g)",
                                       std::isnan(loss.loss_sum) ? "NaN" : "infinite", epoch,
                                       batch + 1, double(lr)));
                epoch_loss.loss_sum += loss.loss_sum;
                epoch_loss.correct += loss.correct;
                step_report.epoch = epoch;
                step_report.batch = batch + 1;
                std::copy(timings.begin(), timings.end(), step_report.devices.begin());
                add_step_timings(summary, timings);
                if (trace) trace->add_step(step_report, std::chrono::steady_clock::now());
                observer.on_step(step_report);
                int local_rows = 0;
                for (const auto& timing : timings) local_rows += timing.shard;
                observer.on_batch({epoch, batch + 1, batches,
                                   local_rows ? loss.loss_sum / local_rows : 0.0});
                if ((batch + 1) % kParameterCheckSteps == 0)
                    require_finite_parameters(replicas, epoch, batch + 1, lr);
            }
            const double seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            if (stopped) break;  // a partial epoch is not a measurement
            require_finite_parameters(replicas, epoch, batches,
                                      learning_rate_at(config_, epoch, batches - 1, batches));

            // Once per epoch, not per step: the sums over every process's shards.
            double sums[] = {epoch_loss.loss_sum, double(epoch_loss.correct)};
            replicas.sum_over_processes(sums);
            const double samples = data.train.count;
            const EpochMetrics metrics{epoch, sums[0] / samples, sums[1] / samples,
                                       replicas.evaluate(data.test), seconds,
                                       parameter_drift_after(config_, replicas, epoch)};
            summary.epochs.push_back(metrics);
            observer.on_epoch(metrics);
            if (config_.preview_samples > 0 && replicas.holds_rank0())
                observer.on_predictions(
                    preview_predictions(epoch, replicas, data.test, config_.preview_samples));
            if (!config_.save_path.empty()) replicas.save(config_.save_path, config_.model);
            if (trace) trace->write(config_.trace_path);
            // The first epoch met every training shape: later runs reuse its choices.
            if (const std::string failed = kernels.save(); !failed.empty())
                observer.on_log("warning: kernel choices not saved (they are measured again "
                                "next run): " + failed);
        }
        // Without a finished epoch there is no accuracy or time to sum up.
        if (!summary.epochs.empty()) observer.on_log(summary.summary_line());
        observer.on_finished(summary);
        return stopped || stop_requested_ ? RunOutcome::stopped : RunOutcome::finished;
    } catch (...) {
        observer.on_failed(current_exception_message());
        return RunOutcome::failed;
    }
}

}  // namespace dp
