#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/machine_load.h"
#include "record/run_record.h"
#include "record/run_record_sink.h"
#include "study/study_plan.h"
#include "study/study_table.h"
#include "train/trainer.h"

namespace dp {

// What one run of a study left.
struct StudyRunResult {
    PlannedRun run;
    RunOutcome outcome = RunOutcome::failed;
    RunRecord record;  // as its sinks got it at the end
    RunSummary summary;
    // How busy the rest of the machine was while it trained, measured once
    // (the record's own measurement, train/recorded_run.h).
    MachineLoad load;
    std::string failure;       // the run's error as rendered; "" unless it failed
    std::string record_error;  // the first sink that could not keep the run's end; "" if all did
};

// What a study left: its runs in the order they trained (up to the first
// that did not finish), and its table (study/study_table.h).
struct StudyResult {
    std::vector<StudyRunResult> runs;
    std::vector<StudyRow> table;
    bool complete = false;  // every planned run finished
    // Each run's record, in the order they trained.
    std::vector<RunRecord> records() const;
};

// One event stream for a study, on the thread that runs it: the study's
// start, each run's start, the run's own events (TrainObserver's: log lines,
// batches, epochs, its end), each run's result, and the study's end with its
// table. Front ends render it (dp-train prints it; the workbench queues it to
// its own thread).
class StudyObserver : public TrainObserver {
public:
    virtual void on_study_started(const StudyPlan& /*plan*/) {}
    // `trainer` runs it until on_run_finished: a front end may ask it to stop.
    virtual void on_run_started(const PlannedRun& /*run*/, Trainer& /*trainer*/) {}
    virtual void on_run_finished(const StudyRunResult& /*result*/) {}
    virtual void on_study_finished(const StudyResult& /*result*/) {}
};

// Runs a study's plan through the engine: each planned run on its devices
// (resolved once, by the plan), recorded from its start to its end through
// the record sinks the front end keeps runs in, the machine's load measured
// once per run. A run that does not finish (failed, stopped) ends the study.
class StudyRunner {
public:
    struct Options {
        std::string source = "dp-train";  // RunRecord::source
        // Where each run's record is kept; none: records are only returned.
        std::function<std::vector<std::unique_ptr<RunRecordSink>>(const TrainConfig&)> sinks;
        // How a run's error reads in its record and result (dp-train names
        // settings by their flags); none: as the engine says it.
        std::function<std::string(const std::string&)> render_error;
        // Where each run writes its Chrome step trace, named by the run's id
        // ("<id>.trace.json"; the folder must exist); "": as the run's
        // settings say (TrainConfig::trace_path).
        std::string trace_folder;
    };
    explicit StudyRunner(Options options)
        : options_(std::move(options)), stop_(std::make_unique<StopRequest>()) {}

    // Blocks until the study ends. A sink that cannot be written when a run
    // starts throws its dp::Error, as a run that cannot keep its record would.
    StudyResult run(const StudyPlan& plan, StudyObserver& observer);

    // Callable from any thread: the run in flight stops after its batch in
    // flight (keeping its completed epochs), and the study ends with it; a
    // study not yet begun runs no run.
    void request_stop();

private:
    StudyRunResult run_one(const PlannedRun& run, StudyObserver& observer);

    // The stop request and the trainer it reaches, shared with other threads.
    struct StopRequest {
        std::mutex mutex;
        bool requested = false;
        Trainer* trainer = nullptr;  // the run in flight's; null between runs
    };

    Options options_;
    std::unique_ptr<StopRequest> stop_;
};

}  // namespace dp
