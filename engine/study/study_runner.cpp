#include "study/study_runner.h"

#include <filesystem>
#include <optional>

#include "study/recording_observer.h"

namespace dp {

std::vector<RunRecord> StudyResult::records() const {
    std::vector<RunRecord> records;
    for (const StudyRunResult& run : runs) records.push_back(run.record);
    return records;
}

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
    result.table = study_table(result.records());
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
