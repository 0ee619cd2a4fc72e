#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "data/dataset.h"
#include "devices/device_thread.h"
#include "parallel/communicator.h"
#include "parallel/gradient_reducer.h"
#include "train/replica.h"
#include "train/train_config.h"

namespace dp {

// The data-parallel engine: one replica per device, each on its device's
// thread, kept identical by broadcasting replica 0's parameters at start and
// all-reducing gradients every step (d2l 12.5's split -> forward/backward ->
// allreduce -> update loop).
class ReplicaGroup {
public:
    ReplicaGroup(const std::vector<DeviceInfo>& devices, const TrainConfig& config,
                 const SampleShape& input, int classes);
    ~ReplicaGroup();

    int size() const { return int(replicas_.size()); }
    std::size_t parameter_count() const { return replicas_[0]->model().parameters().total_size(); }

    // One step on a global batch (`batch` indexes `set`), split across the
    // devices like nn.parallel.scatter. `loss` receives the sums over the batch.
    std::vector<DeviceStepTiming> train_step(const Dataset& set, std::span<const int> batch,
                                             float lr, Backend::LossResult& loss);

    // Test accuracy, with the set split across the devices.
    double evaluate(const Dataset& set);

    // Checkpoints, PyTorch-compatible (see io/model_checkpoint.h). A load
    // goes into replica 0 and is broadcast to the others.
    void save(const std::filesystem::path& file, const std::string& model_name);
    void load(const std::filesystem::path& file, const std::string& model_name);

    // Replica `rank`'s parameters, copied to the host.
    std::vector<float> parameters(int rank);

private:
    // Runs job(rank) on every device thread and waits for all. If one throws,
    // the communicator is aborted so no other rank waits forever in a
    // collective, and the first error is rethrown.
    void on_all_devices(const std::function<void(int rank)>& job);

    std::unique_ptr<Communicator> communicator_;
    std::vector<std::unique_ptr<DeviceThread>> threads_;
    std::vector<std::unique_ptr<Replica>> replicas_;
    std::vector<std::unique_ptr<GradientReducer>> reducers_;
    std::uint64_t seed_;
    bool sync_bn_;
    std::uint64_t steps_ = 0;
};

}  // namespace dp
