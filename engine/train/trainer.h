#pragma once

#include <atomic>

#include "train/train_config.h"
#include "train/train_observer.h"

namespace dp {

enum class RunOutcome { finished, stopped, failed };

// Runs one training session: loads the data, builds the model on its device,
// trains epoch by epoch and evaluates on the test set after each epoch.
class Trainer {
public:
    explicit Trainer(TrainConfig config);

    // Blocks until the run ends. Errors are reported through on_failed (never
    // thrown), so a front end can run this on any thread.
    RunOutcome run(TrainObserver& observer);

    // Thread-safe: the run stops after the batch in flight and reports the
    // epochs it completed.
    void request_stop() { stop_requested_ = true; }

private:
    TrainConfig config_;
    std::atomic<bool> stop_requested_{false};
};

}  // namespace dp
