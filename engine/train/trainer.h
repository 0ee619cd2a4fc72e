#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collective/communicator.h"
#include "config/device_choice.h"
#include "config/train_config.h"
#include "train/train_observer.h"

namespace dp {

enum class RunOutcome { finished, stopped, failed };

// This process's part of a run spread over several processes (mpirun, one
// process per device): the config's devices are ranks [first_rank,
// first_rank + devices) of `communicator`, which reaches every rank.
struct ProcessPart {
    std::unique_ptr<Communicator> communicator;
    int first_rank = 0;
    std::vector<std::string> rank_devices;  // every rank's device, in rank order: the summary's
    // Called with this process's data_fingerprint (config/training_data.h)
    // once the data is loaded, before the first collective of training:
    // throws dp::Error unless every process loaded the same data. Empty: no check.
    std::function<void(const std::string& data_fingerprint)> check_same_data;
};

// Runs one training session: loads the data, builds the model on its
// devices, trains epoch by epoch and evaluates on the test set after each
// epoch. In a multi-process run every process runs a Trainer; the numbers
// each reports (epoch metrics, summary) are those of the whole run, and rank
// 0's process alone writes checkpoints and reports predictions.
class Trainer {
public:
    // Every device of config.devices in this process, resolved when the run
    // starts.
    explicit Trainer(TrainConfig config);
    // On `devices`, config.devices as the caller resolved them
    // (select_devices), so that a run reads the machine's devices once.
    Trainer(TrainConfig config, std::vector<DeviceInfo> devices);
    // One process of a multi-process run, on its `devices`; run() may then be
    // called once.
    Trainer(TrainConfig config, std::vector<DeviceInfo> devices, ProcessPart part);

    // Blocks until the run ends. Errors are reported through on_failed (never
    // thrown), so a front end can run this on any thread.
    RunOutcome run(TrainObserver& observer);

    // Thread-safe: the run stops after the batch in flight and reports the
    // epochs it completed.
    void request_stop() { stop_requested_ = true; }

private:
    TrainConfig config_;
    std::optional<std::vector<DeviceInfo>> devices_;  // empty: resolved by run()
    std::optional<ProcessPart> part_;
    std::atomic<bool> stop_requested_{false};
};

}  // namespace dp
