#pragma once

#include <string>

#include "record/run_metrics.h"

namespace dp {

// Receives a run's events, on the thread that runs the trainer. Front ends
// forward them (the GUI by queued signals to its own thread).
class TrainObserver {
public:
    virtual ~TrainObserver() = default;
    virtual void on_log(const std::string& /*line*/) {}
    virtual void on_batch(const BatchProgress& /*progress*/) {}
    virtual void on_step(const StepReport& /*report*/) {}
    virtual void on_epoch(const EpochMetrics& /*metrics*/) {}
    // After each epoch's evaluation, when TrainConfig::preview_samples > 0.
    virtual void on_predictions(const PredictionSamples& /*samples*/) {}
    // A run that was stopped early still finishes, with the epochs it completed.
    virtual void on_finished(const RunSummary& /*summary*/) {}
    virtual void on_failed(const std::string& /*message*/) {}
};

}  // namespace dp
