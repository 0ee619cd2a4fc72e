#include "train/trainer.h"

#include <chrono>

#include "core/exception_message.h"
#include "train/training_run.h"

namespace dp {

Trainer::Trainer(TrainConfig config) : config_(std::move(config)) {}

Trainer::Trainer(TrainConfig config, std::vector<DeviceInfo> devices)
    : config_(std::move(config)), devices_(std::move(devices)) {}

Trainer::Trainer(TrainConfig config, std::vector<DeviceInfo> devices, ProcessPart part)
    : config_(std::move(config)), devices_(std::move(devices)), part_(std::move(part)) {}

// Read top to bottom as llm.c's training section: prepare, then each epoch's
// steps and its end, then the summary (train/training_run.h).
RunOutcome Trainer::run(TrainObserver& observer) {
    try {
        TrainingRun run(config_, devices_, part_, stop_requested_, observer);
        for (int epoch = 1; epoch <= config_.epochs; ++epoch) {
            const auto start = std::chrono::steady_clock::now();
            if (!run.train_epoch(epoch)) break;  // stopped: a partial epoch is not a measurement
            run.finish_epoch(epoch, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        }
        return run.finish();
    } catch (...) {
        observer.on_failed(current_exception_message());
        return RunOutcome::failed;
    }
}

}  // namespace dp
