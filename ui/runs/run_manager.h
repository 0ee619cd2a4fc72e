#pragma once

#include <QObject>
#include <QString>

#include <optional>

#include "run_queue.h"
#include "train/recorded_run.h"
#include "record/run_record.h"
#include "config/train_config.h"
#include "training_controller.h"

class RunHistory;
class TrainingWorker;

// Runs the queue one run at a time on the training thread and keeps each
// run's dp::RunRecord: epochs appended as they complete, the outcome at the
// end, every change saved to the history (when there is one) on this thread.
class RunManager : public QObject {
    Q_OBJECT

public:
    // `history` may be null (the database could not be opened): runs still
    // run, unrecorded. It must outlive the manager.
    explicit RunManager(RunHistory* history, QObject* parent = nullptr);
    // A run still in flight (the window went without waiting for its end)
    // is recorded as stopped, with the epochs it completed.
    ~RunManager() override;

    RunQueue* queue() { return &queue_; }
    // Connect to its signals for the live views; they arrive queued.
    const TrainingWorker* worker() const { return training_.worker(); }
    bool isRunning() const { return current_.has_value(); }
    // The run in progress; null when idle.
    const dp::RunRecord* currentRun() const { return current_ ? &current_->record() : nullptr; }
    bool isRunningRun(const std::string& id) const { return current_ && current_->record().id == id; }
    // Names the run in flight, if it is run `id`; its next record write keeps the name.
    void renameCurrent(const std::string& id, const std::string& name);
    // Tags and notes the run in flight, if it is the run of `record`, keeps writing.
    void annotateCurrent(const dp::RunRecord& record);

    // Starts `config` now when idle, else after the queued runs; runs given
    // one `comparisonGroup` are each other's baseline. A `name` labels the
    // run as a rename would.
    // Where each run started from now on writes its Chrome step trace
    // (`run id`.trace.json, created if missing); empty, as at first: no trace
    // file at all (the views take their step timings from the worker's
    // signals and the record, not from a trace).
    void setTraceFolder(const QString& folder) { traceFolder_ = folder; }
    const QString& traceFolder() const { return traceFolder_; }

    void enqueue(const dp::TrainConfig& config, const std::string& comparisonGroup = {},
                 const std::string& name = {});
    // The run in progress stops after its batch in flight, keeping its
    // completed epochs; the queued runs are dropped.
    void stopAll();

signals:
    void runStarted(const dp::RunRecord& record);
    // After each epoch, once the record holds it.
    void runUpdated(const dp::RunRecord& record);
    // `message` is d2l's summary line, or the error of a failed run.
    void runEnded(const dp::RunRecord& record, const QString& message);
    void historyFailed(const QString& message);
    // The trace folder could not be created: the run goes on untraced.
    void traceFailed(const QString& message);
    // After runEnded, for a run whose end the history could not write (said
    // by historyFailed): its record was written to `asideFile` instead
    // (run_aside_file.h), or nowhere, `asideFile` empty and `asideProblem` saying why.
    void runNotKept(const dp::RunRecord& record, const QString& asideFile, const QString& asideProblem);

private:
    QString traceFolder_;  // each run's Chrome step trace (dp::TrainConfig::trace_path); empty: none
    void startNext();
    void recordEpoch(const dp::EpochMetrics& metrics);
    void endRun(dp::RunOutcome outcome, const QString& message);

    RunHistory* history_;
    // The history's last failure in this run, as its sink reported it (a
    // repeat is not reported again); set during RecordedRun::finish when the
    // run's end was not written.
    QString lastHistoryProblem_;
    RunQueue queue_;
    // The run in progress, kept in the history (when there is one) as it goes.
    std::optional<dp::RecordedRun> current_;

    // Declared last so it is destroyed first: it stops the run and joins the
    // worker thread while the state above still exists.
    TrainingController training_;
};
