#include "train/replica_group.h"

#include <algorithm>
#include <exception>

#include "checkpoint/model_checkpoint.h"
#include "config/slow_devices.h"
#include "core/setting_ref.h"
#include "parallel/batch_split.h"
#include "parallel/bucket_plan.h"
#include "parallel/communicator_factory.h"

namespace dp {

ReplicaGroup::ReplicaGroup(const std::vector<DeviceInfo>& devices, const TrainConfig& config,
                           const SampleShape& input, int classes,
                           const BackendWrapper& wrap_backend)
    : ReplicaGroup(devices,
                   make_local_communicator(devices, config.allreduce, config.collective_timeout_s),
                   0, config, input, classes, wrap_backend) {}

ReplicaGroup::ReplicaGroup(const std::vector<DeviceInfo>& devices,
                           std::unique_ptr<Communicator> communicator, int first_rank,
                           const TrainConfig& config, const SampleShape& input, int classes,
                           const BackendWrapper& wrap_backend)
    : communicator_(std::move(communicator)),
      first_rank_(first_rank),
      replicas_(devices.size()),
      reducers_(devices.size()),
      seed_(config.seed),
      sync_bn_(config.sync_bn),
      dataparallel_(config.allreduce == AllReduceStrategy::dataparallel),
      weight_decay_(config.weight_decay),
      timings_(devices.size()),
      losses_(devices.size()) {
    if (first_rank < 0 || first_rank + size() > world())
        throw Error("ranks " + std::to_string(first_rank) + " to " +
                    std::to_string(first_rank + size() - 1) + " do not fit a run of " +
                    std::to_string(world()) + " ranks");
    if (dataparallel_ && (world() != size() || config.accumulate > 1))
        throw Error(setting("allreduce") + " dataparallel runs in one process without " +
                    setting("accumulate") + ", as nn.DataParallel does");
    for (const auto& device : devices) threads_.push_back(std::make_unique<DeviceThread>(device));
    // The largest micro-batch: the first of the first shard (batch_shard gives earlier parts more).
    const int max_rows =
        batch_shard(batch_shard(config.batch_size, world(), 0).rows, config.accumulate, 0).rows;
    const auto bucket_bytes = std::size_t(config.bucket_mb * 1024 * 1024);
    // DDP's small first bucket, so the first reduction starts early in backward.
    const auto first_bucket_bytes = std::min<std::size_t>(bucket_bytes, 1024 * 1024);
    communicator_->set_phase({"at start-up"});
    on_all_devices([&](int local) {
        const int rank = first_rank_ + local;
        auto replica = std::make_unique<Replica>(devices[local], config.model, input, classes,
                                                 max_rows, config.seed + std::uint64_t(rank),
                                                 config.accumulate,
                                                 precision_named(config.precision),
                                                 dataparallel_ ? config.batch_size : 0,
                                                 slowdown_of(config.slow_devices, devices[local].id),
                                                 [&](std::unique_ptr<Backend> backend) {
                                                     return wrap_backend
                                                                ? wrap_backend(std::move(backend), local)
                                                                : std::move(backend);
                                                 });
        // Different seeds on purpose: the broadcast, not the seed, makes replicas equal.
        ParameterStore& parameters = replica->model().parameters();
        communicator_->broadcast(rank, parameters.values(), parameters.total_size(), 0);
        reducers_[local] = std::make_unique<GradientReducer>(
            *communicator_, rank, plan_buckets(parameters.infos(), bucket_bytes, first_bucket_bytes),
            parameters.gradients());
        replicas_[local] = std::move(replica);
    });
}

ReplicaGroup::~ReplicaGroup() {
    // Device memory is freed on the thread that owns the device.
    try {
        on_all_devices([&](int local) {
            reducers_[local].reset();
            replicas_[local].reset();
        });
    } catch (...) {
        // Freeing cannot fail in a way a caller could act on.
    }
}

void ReplicaGroup::run_current_job(int local) {
    try {
        current_job_(local);
    } catch (...) {
        // Wakes this process's other replicas, which may wait for this one in
        // a collective. A replica alone in its process leaves ending the
        // other processes to its caller, which reports the error first
        // (aborting an MPI communicator ends the job at once).
        if (size() > 1) communicator_->abort();
        throw;
    }
}

void ReplicaGroup::on_all_devices(ReplicaJob job) {
    current_job_ = job;
    // A lambda of a pointer and an int fits std::function's inline storage.
    for (int local = 0; local < size(); ++local)
        threads_[local]->start([this, local] { run_current_job(local); });
    // The first error in rank order that is not a mere consequence of the abort.
    std::exception_ptr first_error, first_abort;
    for (auto& thread : threads_) {
        try {
            thread->wait();
        } catch (const CollectiveAborted&) {
            if (!first_abort) first_abort = std::current_exception();
        } catch (...) {
            if (!first_error) first_error = std::current_exception();
        }
    }
    if (first_error) std::rethrow_exception(first_error);
    if (first_abort) std::rethrow_exception(first_abort);
}

std::span<const int> ReplicaGroup::start_epoch(const Dataset& set, std::span<const int> order) {
    epoch_order_.assign(order.begin(), order.end());
    on_all_devices([&](int local) { replicas_[local]->start_epoch(set, epoch_order_); });
    return epoch_order_;
}

std::span<const DeviceStepTiming> ReplicaGroup::train_step(const Dataset& set,
                                                           std::span<const int> batch, float lr) {
    const int global_batch = int(batch.size());
    const std::uint64_t step = steps_++;
    communicator_->set_phase({"of step", steps_});
    on_all_devices([&](int local) {
        const int rank = first_rank_ + local;
        const BatchShard shard = batch_shard(global_batch, world(), rank);
        const Pass pass{.batch = shard.rows,
                        .training = true,
                        .seed = seed_,
                        .step = step,
                        .first_sample = std::uint64_t(shard.offset),
                        .sync_batch_norm = sync_bn_ ? communicator_.get() : nullptr,
                        .rank = rank,
                        .global_batch = global_batch};
        Replica& replica = *replicas_[local];
        if (dataparallel_)
            replica.train_step_dataparallel(set, batch, pass, lr, *communicator_, weight_decay_);
        else
            replica.train_step(set, batch.subspan(shard.offset, shard.rows), pass, lr,
                               *reducers_[local], weight_decay_);
        timings_[local] = replica.step_timing();
    });
    return timings_;
}

std::span<const DeviceStepTiming> ReplicaGroup::train_step(const Dataset& set,
                                                           std::span<const int> batch, float lr,
                                                           Backend::LossResult& loss) {
    const auto timings = train_step(set, batch, lr);
    loss = take_loss();
    return timings;
}

bool ReplicaGroup::host_reads_are_free() const {
    return std::all_of(replicas_.begin(), replicas_.end(),
                       [](const auto& replica) { return replica->backend().host_reads_are_free(); });
}

Backend::LossResult ReplicaGroup::take_loss() {
    // Host memory is read here, between steps; a device's, on its own thread.
    if (host_reads_are_free())
        for (int local = 0; local < size(); ++local) losses_[local] = replicas_[local]->take_loss();
    else
        on_all_devices([&](int local) { losses_[local] = replicas_[local]->take_loss(); });
    Backend::LossResult loss;
    for (const auto& shard_loss : losses_) {
        loss.loss_sum += shard_loss.loss_sum;
        loss.correct += shard_loss.correct;
    }
    return loss;
}

void ReplicaGroup::on_each_device(const std::function<void(int local)>& job) {
    on_all_devices([&](int local) { job(local); });
}

Evaluation ReplicaGroup::evaluate(const Dataset& set) {
    std::vector<Backend::LossResult> results(replicas_.size());
    communicator_->set_phase(phase_between_steps());
    on_all_devices([&](int local) {
        // BatchNorm keeps statistics per replica while training (DataParallel's
        // behaviour); evaluation uses their mean, the same on every replica,
        // so an evaluation split across ranks equals one on any of them.
        const int rank = first_rank_ + local;
        Replica& replica = *replicas_[local];
        ParameterStore& store = replica.model().parameters();
        if (world() > 1 && store.buffers_size() > 0) {
            communicator_->all_reduce_sum(rank, store.buffers(), store.buffers_size());
            replica.backend().scale(store.buffers_size(), 1.f / float(world()), store.buffers());
        }
        const BatchShard shard = batch_shard(set.count, world(), rank);
        results[local] = replica.evaluate(set, shard.offset, shard.rows);
    });
    double totals[] = {0, 0};  // correct, loss sum
    for (const auto& result : results) {
        totals[0] += double(result.correct);
        totals[1] += result.loss_sum;
    }
    sum_over_processes(totals);
    if (set.count == 0) return {};
    return {.accuracy = totals[0] / set.count, .loss = totals[1] / set.count};
}

std::vector<int> ReplicaGroup::predict(const Dataset& set, int count) {
    std::vector<int> classes;
    if (!holds_rank0()) return classes;
    on_all_devices([&](int local) {
        if (local == 0) classes = replicas_[0]->predict(set, 0, std::min(count, set.count));
    });
    return classes;
}

std::vector<double> ReplicaGroup::device_cpu_seconds() const {
    std::vector<double> seconds;
    for (const auto& thread : threads_) seconds.push_back(thread->cpu_seconds());
    return seconds;
}

void ReplicaGroup::sum_over_processes(std::span<double> values) {
    // Every rank joins the all-reduce; local replica 0 brings this process's
    // values and the others zeros, so each process counts once.
    std::vector<std::vector<float>> contributions(std::size_t(size()),
                                                  std::vector<float>(values.size(), 0.f));
    std::copy(values.begin(), values.end(), contributions[0].begin());
    communicator_->set_phase(phase_between_steps());
    on_all_devices([&](int local) {
        replicas_[local]->all_reduce_host(*communicator_, first_rank_ + local, contributions[local]);
    });
    std::copy(contributions[0].begin(), contributions[0].end(), values.begin());
}

void ReplicaGroup::save(const std::filesystem::path& file, const std::string& model_name) {
    on_all_devices([&](int local) {
        if (first_rank_ + local == 0)
            save_model(file, model_name, replicas_[0]->model().parameters(), replicas_[0]->backend());
    });
}

void ReplicaGroup::load(const std::filesystem::path& file, const std::string& model_name) {
    communicator_->set_phase(phase_between_steps());
    on_all_devices([&](int local) {
        const int rank = first_rank_ + local;
        ParameterStore& store = replicas_[local]->model().parameters();
        if (rank == 0) load_model(file, model_name, store, replicas_[0]->backend());
        communicator_->broadcast(rank, store.values(), store.total_size(), 0);
        communicator_->broadcast(rank, store.buffers(), store.buffers_size(), 0);
    });
}

CollectivePhase ReplicaGroup::phase_between_steps() const {
    if (steps_ == 0) return {"before the first step"};
    return {"after step", steps_};
}

std::vector<float> ReplicaGroup::parameters(int local) {
    std::vector<float> host;
    on_all_devices([&](int l) {
        if (l != local) return;
        ParameterStore& parameters = replicas_[l]->model().parameters();
        host.resize(parameters.total_size());
        replicas_[l]->backend().download(parameters.values(), host.data(), host.size());
    });
    return host;
}

NonFiniteValues ReplicaGroup::non_finite_parameters() {
    return find_non_finite(replicas_[0]->model().parameters().infos(), parameters(0));
}

}  // namespace dp
