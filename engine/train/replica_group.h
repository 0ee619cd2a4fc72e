#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

#include "backend/forwarding_backend.h"
#include "data/dataset.h"
#include "devices/device_thread.h"
#include "collective/communicator.h"
#include "parallel/gradient_reducer.h"
#include "train/replica.h"
#include "config/train_config.h"

namespace dp {

// A model's score on a whole set: the share classified correctly and the mean
// per-sample loss (nn.CrossEntropyLoss(reduction='mean') over the set).
struct Evaluation {
    double accuracy = 0;
    double loss = 0;
};

// The data-parallel engine: one replica per device, each on its device's
// thread, kept identical by broadcasting rank 0's parameters at start and
// all-reducing gradients every step (d2l 12.5's split -> forward/backward ->
// allreduce -> update loop). With allreduce dataparallel, each step is
// nn.DataParallel's instead (Replica::train_step_dataparallel): outputs
// gathered to rank 0 for the loss, gradients summed there, the update on rank
// 0 only and its parameters broadcast; one process only, no micro-batches.
//
// A run has `world()` ranks, one per device. In one process they are all
// here; in a run of several processes (mpirun) this group holds the ranks
// [first_rank(), first_rank() + size()) and its communicator reaches the
// others. Every global batch is split over all ranks, so a run of N processes
// trains exactly as N devices in one process do.
class ReplicaGroup {
public:
    // Every rank in this process: one per device, communicating in-process.
    // `wrap_backend`: a decorator for each device's backend (dp-train
    // --profile-ops's per-op timer, a test's counting backend), or none.
    ReplicaGroup(const std::vector<DeviceInfo>& devices, const TrainConfig& config,
                 const SampleShape& input, int classes, const BackendWrapper& wrap_backend = {});
    // This process's ranks of a larger run: `devices` hold ranks first_rank...
    // of `communicator`, whose size() is the run's world.
    ReplicaGroup(const std::vector<DeviceInfo>& devices, std::unique_ptr<Communicator> communicator,
                 int first_rank, const TrainConfig& config, const SampleShape& input, int classes,
                 const BackendWrapper& wrap_backend = {});
    ~ReplicaGroup();

    int size() const { return int(replicas_.size()); }  // replicas in this process
    int world() const { return communicator_->size(); }  // ranks in the run
    int first_rank() const { return first_rank_; }
    bool holds_rank0() const { return first_rank_ == 0; }
    std::size_t parameter_count() const { return replicas_[0]->model().parameters().total_size(); }

    // Takes the epoch's `order` of the samples of `set` (copied here) and
    // makes `set` resident on every device: steps whose batch is a subspan
    // of the returned order gather it on the device. Valid until the next call.
    std::span<const int> start_epoch(const Dataset& set, std::span<const int> order);

    // One step on a global batch (`batch` indexes `set`), split across every
    // rank of the run like nn.parallel.scatter; this process computes its
    // ranks' shards. The result is each local replica's timing, valid until
    // the next step. Allocates nothing, and (but for a straggler's simulated
    // wait and the DataParallel step) never waits for a device: the shards'
    // losses are summed on their devices until take_loss() reads them.
    std::span<const DeviceStepTiming> train_step(const Dataset& set, std::span<const int> batch,
                                                 float lr);
    // The step above with its loss read at once (summed over this process's
    // shards): a wait for the devices after every step.
    std::span<const DeviceStepTiming> train_step(const Dataset& set, std::span<const int> batch,
                                                 float lr, Backend::LossResult& loss);
    // The sums of the loss and correct count over this process's shards
    // since the last take (a wait for every device, unless host_reads_are_free()).
    Backend::LossResult take_loss();
    // Whether every local device's memory reads without a wait
    // (Backend::host_reads_are_free): a run then reads each step's loss.
    bool host_reads_are_free() const;

    // Runs job(local) on each local device's thread and waits for all.
    void on_each_device(const std::function<void(int local)>& job);

    // Test accuracy and mean loss over all of `set` from one pass, split
    // across every rank of the run.
    Evaluation evaluate(const Dataset& set);

    // The model's classes for the first `count` samples of `set`, computed
    // by rank 0; empty in a process without rank 0.
    std::vector<int> predict(const Dataset& set, int count);

    // Replaces `values` by their sum over every process of the run (in float
    // precision: exact for counts below 2^24).
    void sum_over_processes(std::span<double> values);
    // The CPU seconds each of this process's device threads has used so far.
    std::vector<double> device_cpu_seconds() const;

    // Checkpoints, PyTorch-compatible (see checkpoint/model_checkpoint.h), written by
    // rank 0 only. A load goes into rank 0 and is broadcast to every rank.
    void save(const std::filesystem::path& file, const std::string& model_name);
    void load(const std::filesystem::path& file, const std::string& model_name);

    // Local replica `local`'s parameters, copied to the host.
    std::vector<float> parameters(int local);

    // NaN and infinite values among local replica 0's parameters (after a
    // step every replica holds the same).
    NonFiniteValues non_finite_parameters();

private:
    // A non-owning reference to a job taking a local replica index (C++26's
    // std::function_ref), so that handing a lambda to on_all_devices
    // allocates nothing.
    class ReplicaJob {
    public:
        ReplicaJob() = default;
        template <typename Job>
            requires(!std::is_same_v<std::remove_cvref_t<Job>, ReplicaJob>)
        ReplicaJob(Job&& job)
            : object_(&job), call_([](void* object, int local) {
                  (*static_cast<std::remove_reference_t<Job>*>(object))(local);
              }) {}
        void operator()(int local) const { call_(object_, local); }

    private:
        void* object_ = nullptr;
        void (*call_)(void*, int) = nullptr;
    };

    // Runs job(local) on every device thread and waits for all. If one
    // throws, the communicator is aborted so no other replica of this process
    // waits forever in a collective, and the first error is rethrown.
    void on_all_devices(ReplicaJob job);
    // What device thread `local` runs for on_all_devices.
    void run_current_job(int local);
    // For the timeout message of a collective outside a step: "after step 40".
    CollectivePhase phase_between_steps() const;

    std::unique_ptr<Communicator> communicator_;
    int first_rank_;
    std::vector<std::unique_ptr<DeviceThread>> threads_;
    std::vector<std::unique_ptr<Replica>> replicas_;
    std::vector<std::unique_ptr<GradientReducer>> reducers_;
    std::uint64_t seed_;
    bool sync_bn_;
    bool dataparallel_;
    float weight_decay_;
    std::uint64_t steps_ = 0;
    ReplicaJob current_job_;
    // Per local replica, kept so that a step allocates nothing.
    std::vector<DeviceStepTiming> timings_;
    std::vector<Backend::LossResult> losses_;
    std::vector<int> epoch_order_;  // start_epoch's
};

}  // namespace dp
