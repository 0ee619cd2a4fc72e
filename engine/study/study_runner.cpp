#include "study/study_runner.h"

#include <filesystem>
#include <optional>

#include "train/recorded_run.h"

namespace dp {
namespace {

// A run's events into its record (batch losses, epochs, step totals), then
// on to the study's observer.
class RecordingObserver final : public TrainObserver {
public:
    RecordingObserver(RecordedRun& record, StudyObserver& observer,
                      const std::function<std::string(const std::string&)>& render_error)
        : record_(record), observer_(observer), render_error_(render_error) {}

    void on_log(const std::string& line) override { observer_.on_log(line); }
    void on_batch(const BatchProgress& progress) override {
        record_.add_batch_loss(batch_clock_.point(progress));
        observer_.on_batch(progress);
    }
    void on_step(const StepReport& report) override { observer_.on_step(report); }
    void on_epoch(const EpochMetrics& metrics) override {
        batch_clock_.end_epoch(metrics.seconds);
        record_.add_epoch(metrics);  // a sink that cannot keep it fails the run (recorded_run.h)
        observer_.on_epoch(metrics);
    }
    void on_predictions(const PredictionSamples& samples) override { observer_.on_predictions(samples); }
    void on_finished(const RunSummary& summary) override {
        summary_ = summary;
        // Kept in the record, which the run's end writes, for the speedup-gap breakdown.
        record_.set_step_totals(summary);
        observer_.on_finished(summary);
    }
    void on_failed(const std::string& message) override {
        failure_ = render_error_ ? render_error_(message) : message;
        observer_.on_failed(message);
    }

    const RunSummary& summary() const { return summary_; }
    const std::string& failure() const { return failure_; }

private:
    RecordedRun& record_;
    StudyObserver& observer_;
    const std::function<std::string(const std::string&)>& render_error_;
    BatchLossClock batch_clock_;  // places each batch's loss in the record
    RunSummary summary_;
    std::string failure_;
};

}  // namespace

void StudyRunner::request_stop() {
    const std::lock_guard lock(stop_->mutex);
    stop_->requested = true;
    if (stop_->trainer) stop_->trainer->request_stop();
}

StudyResult StudyRunner::run(const StudyPlan& plan, StudyObserver& observer) {
    StudyResult result;
    observer.on_study_started(plan);
    result.complete = true;
    for (const PlannedRun& run : plan.runs()) {
        {
            const std::lock_guard lock(stop_->mutex);
            if (stop_->requested) {
                result.complete = false;
                break;
            }
        }
        result.runs.push_back(run_one(run, observer));
        if (result.runs.back().outcome != RunOutcome::finished) {
            result.complete = false;
            break;
        }
    }
    std::vector<RunRecord> records;
    for (const StudyRunResult& run : result.runs) records.push_back(run.record);
    result.table = study_table(records);
    observer.on_study_finished(result);
    return result;
}

StudyRunResult StudyRunner::run_one(const PlannedRun& run, StudyObserver& observer) {
    StudyRunResult result;
    result.run = run;
    TrainConfig config = run.config;
    // The record names the devices the run has, resolved.
    TrainConfig as_run = run.config;
    as_run.devices.clear();
    for (const DeviceInfo& device : run.devices) as_run.devices.push_back(device.id);
    RunRecord started = start_run_record(as_run, options_.source);
    if (!options_.trace_folder.empty())
        started.config.trace_path = config.trace_path =
            (std::filesystem::path(options_.trace_folder) / (started.id + ".trace.json")).string();
    started.comparison_group = run.comparison_group;
    started.name = run.name;
    // Kept even without sinks: its load measurement is the run's one.
    RecordedRun record(std::move(started), options_.sinks ? options_.sinks(config)
                                                          : std::vector<std::unique_ptr<RunRecordSink>>{});
    RecordingObserver recording(record, observer, options_.render_error);
    Trainer trainer(config, run.devices);
    {
        const std::lock_guard lock(stop_->mutex);
        stop_->trainer = &trainer;
        if (stop_->requested) trainer.request_stop();  // asked between the check and here
    }
    observer.on_run_started(run, trainer);
    result.outcome = trainer.run(recording);
    {
        const std::lock_guard lock(stop_->mutex);
        stop_->trainer = nullptr;
    }
    result.record_error = record.finish(result.outcome, recording.failure());
    result.record = record.record();
    result.summary = recording.summary();
    result.load = record.load();
    result.failure = recording.failure();
    observer.on_run_finished(result);
    return result;
}

}  // namespace dp
