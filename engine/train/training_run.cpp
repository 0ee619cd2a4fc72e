#include "train/training_run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <span>

#include "backend/kernel_choices.h"
#include "core/checked_math.h"
#include "core/env_flag.h"
#include "core/error.h"
#include "core/exception_message.h"
#include "core/setting_ref.h"
#include "core/format.h"
#include "data/dataset.h"
#include "data/epoch_sampler.h"
#include "devices/device.h"
#include "models/model_registry.h"
#include "parallel/batch_split.h"
#include "parallel/communicator_factory.h"
#include "train/memory_estimate.h"
#include "train/parameter_drift.h"
#include "train/replica_group.h"
#include "train/step_trace.h"
#include "config/training_data.h"
#include "config/slow_devices.h"

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

// The devices of a run: as the caller resolved them, else selected now;
// either way validated with the settings.
std::vector<DeviceInfo> run_devices(const TrainConfig& config,
                                    const std::optional<std::vector<DeviceInfo>>& devices) {
    if (!devices) return validate_and_select_devices(config);
    validate(config, *devices);
    return *devices;
}

}  // namespace

TrainingRun::TrainingRun(const TrainConfig& config,
                         const std::optional<std::vector<DeviceInfo>>& resolved_devices,
                         std::optional<ProcessPart>& part, const std::atomic<bool>& stop_requested,
                         TrainObserver& observer)
    : config_(config),
      part_(part ? &*part : nullptr),
      stop_requested_(stop_requested),
      observer_(observer),
      kernels_(kernel_choices()) {
    const std::vector<DeviceInfo> devices = run_devices(config_, resolved_devices);
    kernels_.retune(config_.retune);
    auto communicator = part_ ? std::move(part_->communicator)
                              : make_local_communicator(devices, config_.allreduce,
                                                        config_.collective_timeout_s);
    if (!communicator) throw Error("a multi-process Trainer runs once");
    // DataParallel's communicator is naive's (collective_strategy); the run is DataParallel's.
    const std::string allreduce = config_.allreduce == AllReduceStrategy::dataparallel
                                      ? all_reduce_strategy_name(config_.allreduce)
                                      : communicator->name();
    validate_ranks(config_, communicator->size());

    observer_.on_log("loading " + training_data_source(config_));
    require_generated_data_fits(config_);
    data_ = load_training_data(config_);
    observer_.on_log(format("%d training and %d test images", data_.train.count, data_.test.count));
    if (part_ && part_->check_same_data) part_->check_same_data(data_fingerprint(config_, data_));
    const SampleShape input{data_.train.channels, data_.train.height, data_.train.width};
    require_model_takes_data(config_, input, data_.train.classes);
    // A batch larger than the training set is one batch of all of it (as
    // a PyTorch DataLoader gives): the replicas allocate for that, not for
    // the batch size asked (--batch-size 10000000 on 256 images).
    TrainConfig replica_config = config_;
    if (config_.batch_size > data_.train.count) {
        replica_config.batch_size = data_.train.count;
        validate_training_samples(config_, data_.train.count, communicator->size());
        observer_.on_log(format("batch size %d is more than the %d training samples: each "
                                "epoch is one batch of all %d",
                                config_.batch_size, data_.train.count, data_.train.count));
    }
    require_run_fits(replica_config, data_, communicator->size(), int(devices.size()),
                     devices.front().kind == DeviceKind::cpu);

    profilers_.resize(devices.size(), nullptr);
    replicas_.emplace(devices, std::move(communicator), part_ ? part_->first_rank : 0,
                      replica_config, input, data_.train.classes,
                      config_.profile_ops > 0 ? op_profiler_wrapper() : BackendWrapper{});
    step_sync_ = env_flag("DP_CUDA_STEP_SYNC");
    read_loss_every_step_ = replicas_->host_reads_are_free() || step_sync_;
    if (part_) summary_.devices = part_->rank_devices;
    else for (const auto& device : devices) summary_.devices.push_back(device.id);
    std::string header = format("%s: %zu parameters, global batch %d, lr %g, all-reduce %s, %s, on %s",
                                config_.model.c_str(), replicas_->parameter_count(),
                                config_.batch_size, config_.lr, allreduce.c_str(),
                                config_.precision.c_str(), summary_.device_list().c_str());
    if (!config_.slow_devices.empty()) header += ", straggler: " + slow_devices_text(config_.slow_devices);
    observer_.on_log(header);

    if (!config_.load_path.empty()) {
        replicas_->load(config_.load_path, config_.model);
        observer_.on_log("loaded " + config_.load_path);
        if (config_.epochs == 0) {
            const Evaluation test = replicas_->evaluate(data_.test);
            observer_.on_log(format("test loss: %.4f, test acc: %.4f (evaluation only)", test.loss,
                                    test.accuracy));
        }
    }

    // Every rank draws the same permutation and trains its share of each
    // global batch, so the run sees the samples and global batches of a
    // one-process run whatever the number of processes.
    sampler_.emplace(data_.train.count, config_.seed, config_.shuffle);
    batches_ = ceil_div(data_.train.count, config_.batch_size);
    step_report_.devices.resize(std::size_t(replicas_->size()));
    if (!config_.trace_path.empty() && replicas_->holds_rank0()) {
        trace_.emplace(std::vector<std::string>(summary_.devices.begin(),
                                                summary_.devices.begin() + replicas_->size()),
                       std::size_t(batches_), config_.trace_path);
        drop_failed_trace();
    }
}

void TrainingRun::flush_trace() {
    if (!trace_) return;
    trace_->flush();
    drop_failed_trace();
}

// The trace is an aid, not the run's result: a full disk under it costs one
// line in the log, never the training.
void TrainingRun::drop_failed_trace() {
    if (!trace_ || trace_->failure().empty()) return;
    observer_.on_log("warning: step trace stopped (" + trace_->failure() +
                     "); training goes on without it");
    trace_.reset();
}

bool TrainingRun::stop_now() {
    if (!part_) return stopped_ = stop_requested_;
    double asked[] = {stop_requested_ ? 1.0 : 0.0};
    replicas_->sum_over_processes(asked);
    return stopped_ = asked[0] > 0;
}

BackendWrapper TrainingRun::op_profiler_wrapper() {
    // Each device thread writes its own slot.
    return [this](std::unique_ptr<Backend> backend, int local) -> std::unique_ptr<Backend> {
        auto profiler = std::make_unique<OpProfiler>(std::move(backend));
        profilers_[std::size_t(local)] = profiler.get();
        return profiler;
    };
}

// The profiled steps (counted from 0): from the second (the first tunes
// kernels and builds plans), or the first of a run of one step; the last of
// them is the one that ends the window or the run.
TrainingRun::ProfiledStep TrainingRun::profiled_step(std::int64_t step) const {
    const std::int64_t total = std::int64_t(config_.epochs) * batches_;
    const std::int64_t first = total > 1 ? 1 : 0;
    const std::int64_t end = first + config_.profile_ops;
    if (config_.profile_ops <= 0 || step < first || step >= end) return ProfiledStep::no;
    return step + 1 == end || step + 1 == total ? ProfiledStep::last : ProfiledStep::yes;
}

void TrainingRun::start_profiled_step() {
    if (profiled_step(steps_done_) == ProfiledStep::no) return;
    // A flag each timer reads on its device's thread, which waits for its next step.
    for (OpProfiler* profiler : profilers_) profiler->start_step();
}

void TrainingRun::end_profiled_step() {
    const ProfiledStep profiled = profiled_step(steps_done_++);
    if (profiled == ProfiledStep::no) return;
    // On a GPU the events are read on the device's own thread, after the step.
    replicas_->on_each_device([&](int local) { profilers_[std::size_t(local)]->end_step(); });
    if (profiled != ProfiledStep::last) return;
    for (std::size_t d = 0; d < profilers_.size(); ++d)
        observer_.on_log(profilers_[d]->profile().table(
            "op profile of " + summary_.devices[std::size_t(replicas_->first_rank()) + d]));
}

bool TrainingRun::train_epoch(int epoch) {
    // DP_CUDA_STEP_SYNC=1: each batch gathered on the host and uploaded, as before issue 40.
    const auto order = step_sync_ ? sampler_->order(epoch - 1)
                                  : replicas_->start_epoch(data_.train, sampler_->order(epoch - 1));
    if (trace_) trace_->start_epoch();
    epoch_loss_ = {};
    epoch_cpu_start_ = replicas_->device_cpu_seconds();
    epoch_wall_start_ = std::chrono::steady_clock::now();
    for (int batch = 0; batch < batches_ && !stop_now(); ++batch) train_step(epoch, batch, order);
    return !stopped_;
}

void TrainingRun::train_step(int epoch, int batch, std::span<const int> order) {
    const int first = batch * config_.batch_size;
    const int rows = std::min(config_.batch_size, data_.train.count - first);
    const float lr = learning_rate_at(config_, epoch, batch, batches_);
    start_profiled_step();
    const auto timings = replicas_->train_step(data_.train, order.subspan(first, rows), lr);
    end_profiled_step();
    for (const auto& timing : timings) rows_since_loss_read_ += timing.shard;
    if (read_loss_every_step_ || (batch + 1) % kParameterCheckSteps == 0 || batch + 1 == batches_)
        read_loss(epoch, batch, lr);
    step_report_.epoch = epoch;
    step_report_.batch = batch + 1;
    std::copy(timings.begin(), timings.end(), step_report_.devices.begin());
    add_step_timings(summary_, timings);
    if (trace_) trace_->add_step(step_report_, std::chrono::steady_clock::now());
    observer_.on_step(step_report_);
    observer_.on_batch({epoch, batch + 1, batches_, batch_loss_});
    if ((batch + 1) % kParameterCheckSteps == 0)
        require_finite_parameters(*replicas_, epoch, batch + 1, lr);
}

void TrainingRun::read_loss(int epoch, int batch, float lr) {
    const Backend::LossResult loss = replicas_->take_loss();
    if (!std::isfinite(loss.loss_sum))
        throw Error(format("loss became %s %s epoch %d, batch %d: lower the learning rate (now %g)",
                           std::isnan(loss.loss_sum) ? "NaN" : "infinite",
                           read_loss_every_step_ ? "at" : "by", epoch, batch + 1, double(lr)));
    epoch_loss_.loss_sum += loss.loss_sum;
    epoch_loss_.correct += loss.correct;
    batch_loss_ = rows_since_loss_read_ ? loss.loss_sum / rows_since_loss_read_ : 0.0;
    rows_since_loss_read_ = 0;
}

void TrainingRun::finish_epoch(int epoch, double seconds) {
    // Read before the evaluation, which the device threads also run, over
    // the same span as the wall time it is a share of.
    std::vector<double> device_cpu = replicas_->device_cpu_seconds();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - epoch_wall_start_).count();
    for (std::size_t d = 0; d < device_cpu.size(); ++d)
        device_cpu[d] = wall > 0 && d < epoch_cpu_start_.size()
                                ? std::clamp((device_cpu[d] - epoch_cpu_start_[d]) / wall, 0.0, 1.0)
                                : 0;
    require_finite_parameters(*replicas_, epoch, batches_,
                              learning_rate_at(config_, epoch, batches_ - 1, batches_));
    // Once per epoch, not per step: the sums over every process's shards.
    double sums[] = {epoch_loss_.loss_sum, double(epoch_loss_.correct)};
    replicas_->sum_over_processes(sums);
    const double samples = data_.train.count;
    const Evaluation test = replicas_->evaluate(data_.test);
    const EpochMetrics metrics{.epoch = epoch,
                               .train_loss = sums[0] / samples,
                               .train_acc = sums[1] / samples,
                               .test_acc = test.accuracy,
                               .seconds = seconds,
                               .parameter_drift = parameter_drift_after(config_, *replicas_, epoch),
                               .test_loss = test.loss,
                               .device_cpu = std::move(device_cpu)};
    summary_.epochs.push_back(metrics);
    keep_steady_step_totals();
    observer_.on_epoch(metrics);
    if (config_.preview_samples > 0 && replicas_->holds_rank0())
        observer_.on_predictions(preview_predictions(epoch, *replicas_, data_.test, config_.preview_samples));
    if (!config_.save_path.empty()) replicas_->save(config_.save_path, config_.model);
    flush_trace();
    // The first epoch met every training shape: later runs reuse its choices.
    if (const std::string failed = kernels_.save(); !failed.empty())
        observer_.on_log("warning: kernel choices not saved (they are measured again next run): " +
                         failed);
}

void TrainingRun::keep_steady_step_totals() {
    if (summary_.epochs.size() == 1) {
        first_epoch_totals_ = summary_.step_totals;
        first_epoch_steps_ = summary_.steps;
    } else if (summary_.epochs.size() == 2) {
        for (std::size_t d = 0; d < first_epoch_totals_.size(); ++d)
            summary_.step_totals[d] -= first_epoch_totals_[d];
        summary_.steps -= first_epoch_steps_;
    }
    summary_.step_epochs = summary_.epoch_time().steady_epochs;
}

RunOutcome TrainingRun::finish() {
    flush_trace();  // the steps of an epoch a stop cut short
    // Without a finished epoch there is no accuracy or time to sum up.
    if (!summary_.epochs.empty()) observer_.on_log(summary_.summary_line());
    observer_.on_finished(summary_);
    return stopped_ || stop_requested_ ? RunOutcome::stopped : RunOutcome::finished;
}

}  // namespace dp
