#pragma once

#include <functional>
#include <string>

#include "train/recorded_run.h"
#include "train/train_observer.h"

namespace dp {

// A run's events into its record (batch losses, epochs, step totals), then
// on to the front end's observer: how the engine's runners (StudyRunner,
// RankRunner) keep a run's record while the front end renders the run.
class RecordingObserver final : public TrainObserver {
public:
    // `render_error`: how the run's error reads in its record (none: as the
    // engine says it); kept by reference, as the runner's options are.
    RecordingObserver(RecordedRun& record, TrainObserver& observer,
                      const std::function<std::string(const std::string&)>& render_error)
        : record_(record), observer_(observer), render_error_(render_error) {}

    void on_log(const std::string& line) override { observer_.on_log(line); }
    void on_batch(const BatchProgress& progress) override;
    void on_step(const StepReport& report) override { observer_.on_step(report); }
    void on_epoch(const EpochMetrics& metrics) override;
    void on_predictions(const PredictionSamples& samples) override { observer_.on_predictions(samples); }
    void on_finished(const RunSummary& summary) override;
    void on_failed(const std::string& message) override;

    const RunSummary& summary() const { return summary_; }
    const std::string& failure() const { return failure_; }  // rendered; "" unless the run failed

private:
    RecordedRun& record_;
    TrainObserver& observer_;
    const std::function<std::string(const std::string&)>& render_error_;
    BatchLossClock batch_clock_;  // places each batch's loss in the record
    RunSummary summary_;
    std::string failure_;
};

}  // namespace dp
