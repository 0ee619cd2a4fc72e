#include "train/replica_group.h"

#include <exception>

#include "parallel/batch_split.h"
#include "io/model_checkpoint.h"
#include "parallel/bucket_plan.h"

namespace dp {

ReplicaGroup::ReplicaGroup(const std::vector<DeviceInfo>& devices, const TrainConfig& config,
                           const SampleShape& input, int classes)
    : communicator_(make_local_communicator(devices, config.allreduce)),
      replicas_(devices.size()),
      reducers_(devices.size()),
      seed_(config.seed),
      sync_bn_(config.sync_bn) {
    for (const auto& device : devices) threads_.push_back(std::make_unique<DeviceThread>(device));
    const int max_rows = split_batch(config.batch_size, size()).front();
    const auto bucket_bytes = std::size_t(config.bucket_mb * 1024 * 1024);
    // DDP's small first bucket, so the first reduction starts early in backward.
    const auto first_bucket_bytes = std::min<std::size_t>(bucket_bytes, 1024 * 1024);
    on_all_devices([&](int rank) {
        auto replica = std::make_unique<Replica>(devices[rank], config.model, input, classes, max_rows,
                                                 config.seed + std::uint64_t(rank));
        // Different seeds on purpose: the broadcast, not the seed, makes replicas equal.
        ParameterStore& parameters = replica->model().parameters();
        communicator_->broadcast(rank, parameters.values(), parameters.total_size(), 0);
        reducers_[rank] = std::make_unique<GradientReducer>(
            *communicator_, rank, plan_buckets(parameters.infos(), bucket_bytes, first_bucket_bytes),
            parameters.gradients());
        replicas_[rank] = std::move(replica);
    });
}

ReplicaGroup::~ReplicaGroup() {
    // Device memory is freed on the thread that owns the device.
    try {
        on_all_devices([&](int rank) {
            reducers_[rank].reset();
            replicas_[rank].reset();
        });
    } catch (...) {
        // Freeing cannot fail in a way a caller could act on.
    }
}

void ReplicaGroup::on_all_devices(const std::function<void(int rank)>& job) {
    for (int rank = 0; rank < int(threads_.size()); ++rank)
        threads_[rank]->start([this, rank, &job] {
            try {
                job(rank);
            } catch (...) {
                communicator_->abort();
                throw;
            }
        });
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

std::vector<DeviceStepTiming> ReplicaGroup::train_step(const Dataset& set,
                                                       std::span<const int> batch, float lr,
                                                       Backend::LossResult& loss) {
    const auto shards = shard_batch(int(batch.size()), size());
    std::vector<DeviceStepTiming> timings(size());
    std::vector<Backend::LossResult> losses(size());
    const std::uint64_t step = steps_++;
    on_all_devices([&](int rank) {
        const auto& shard = shards[rank];
        const Pass pass{.batch = shard.rows,
                        .training = true,
                        .seed = seed_,
                        .step = step,
                        .first_sample = std::uint64_t(shard.offset),
                        .sync_batch_norm = sync_bn_ ? communicator_.get() : nullptr,
                        .rank = rank,
                        .global_batch = int(batch.size())};
        timings[rank] = replicas_[rank]->train_step(set, batch.subspan(shard.offset, shard.rows),
                                                    pass, lr, *reducers_[rank], losses[rank]);
    });
    loss = {};
    for (const auto& shard_loss : losses) {
        loss.loss_sum += shard_loss.loss_sum;
        loss.correct += shard_loss.correct;
    }
    return timings;
}

double ReplicaGroup::evaluate(const Dataset& set) {
    const auto shards = shard_batch(set.count, size());
    std::vector<std::int64_t> correct(size());
    on_all_devices([&](int rank) {
        // BatchNorm keeps statistics per replica while training (DataParallel's
        // behaviour); evaluation uses their mean, the same on every replica,
        // so an evaluation split across devices equals one on any of them.
        ParameterStore& store = replicas_[rank]->model().parameters();
        if (size() > 1 && store.buffers_size() > 0) {
            communicator_->all_reduce_sum(rank, store.buffers(), store.buffers_size());
            replicas_[rank]->backend().scale(store.buffers_size(), 1.f / float(size()),
                                             store.buffers());
        }
        correct[rank] = replicas_[rank]->count_correct(set, shards[rank].offset, shards[rank].rows);
    });
    std::int64_t total = 0;
    for (auto count : correct) total += count;
    return set.count ? double(total) / set.count : 0;
}

void ReplicaGroup::save(const std::filesystem::path& file, const std::string& model_name) {
    on_all_devices([&](int rank) {
        if (rank == 0) save_model(file, model_name, replicas_[0]->model().parameters(),
                                  replicas_[0]->backend());
    });
}

void ReplicaGroup::load(const std::filesystem::path& file, const std::string& model_name) {
    on_all_devices([&](int rank) {
        ParameterStore& store = replicas_[rank]->model().parameters();
        if (rank == 0) load_model(file, model_name, store, replicas_[0]->backend());
        communicator_->broadcast(rank, store.values(), store.total_size(), 0);
        communicator_->broadcast(rank, store.buffers(), store.buffers_size(), 0);
    });
}

std::vector<float> ReplicaGroup::parameters(int rank) {
    std::vector<float> host;
    on_all_devices([&](int r) {
        if (r != rank) return;
        ParameterStore& parameters = replicas_[r]->model().parameters();
        host.resize(parameters.total_size());
        replicas_[r]->backend().download(parameters.values(), host.data(), host.size());
    });
    return host;
}

}  // namespace dp
