#pragma once

#include <QObject>
#include <QString>

#include <deque>
#include <memory>
#include <optional>

#include "record/run_record.h"
#include "run_queue.h"
#include "study/study_runner.h"
#include "training_controller.h"

class RunHistory;
class TrainingWorker;
class UserEditsInFlight;

// The workbench's front to the engine's studies (study/study_runner.h):
// it submits each plan (one run, a comparison, a lesson's runs, a sweep) to
// the training thread, one study at a time, and follows what the engine
// does with it: the runs start, their records (kept in the history by the
// engine, on that thread) change after each epoch, they end. The queue shows
// every run not yet started.
class RunManager : public QObject {
    Q_OBJECT

public:
    // `history` may be null (the database could not be opened): runs still
    // run, unrecorded. It must outlive the manager.
    explicit RunManager(RunHistory* history, QObject* parent = nullptr);
    // A study still in flight (the window went without waiting for its
    // end) stops: its run in flight is recorded as stopped, with the epochs
    // it completed.
    ~RunManager() override;

    RunQueue* queue() { return &queue_; }
    // Connect to its signals for the live views; they arrive queued.
    const TrainingWorker* worker() const;
    // A study's runs are in flight (until its last run's end is known).
    bool isRunning() const { return running_.has_value(); }
    // The number (enqueue's) of the study in flight; none when idle.
    std::optional<int> runningStudy() const { return running_; }
    // The run in progress as last written; null between runs.
    const dp::RunRecord* currentRun() const { return current_ ? &*current_ : nullptr; }
    bool isRunningRun(const std::string& id) const { return current_ && current_->id == id; }
    // Names the run in flight, if it is run `id`; its next record write keeps the name.
    void renameCurrent(const std::string& id, const std::string& name);
    // Tags and notes the run in flight, if it is the run of `record`, keeps writing.
    void annotateCurrent(const dp::RunRecord& record);

    // Where each run started from now on writes its Chrome step trace
    // (`run id`.trace.json, created if missing); empty, as at first: no trace
    // file at all (the views take their step timings from the worker's
    // signals and the record, not from a trace).
    void setTraceFolder(const QString& folder) { traceFolder_ = folder; }
    const QString& traceFolder() const { return traceFolder_; }

    // Runs `plan` now when idle, else after the studies queued before it.
    // Returns the study's number, which studyEnded names.
    int enqueue(dp::StudyPlan plan);
    // The run in progress stops after its batch in flight, keeping its
    // completed epochs; its study and the queued ones are dropped.
    void stopAll();

signals:
    // Study `study` (enqueue's number) went to the training thread; its
    // first run's record follows as runStarted.
    void studyStarted(int study);
    void runStarted(const dp::RunRecord& record);
    // After each epoch, once the record holds it.
    void runUpdated(const dp::RunRecord& record);
    // `message` is d2l's summary line, or the error of a failed run.
    void runEnded(const dp::RunRecord& record, const QString& message);
    // Beside runEnded: the run was one of study `study`'s.
    void studyRunEnded(int study, const dp::RunRecord& record);
    // After the last run of study `study` (enqueue's number) ended, or the
    // first that did not finish: its runs and table (study/study_table.h).
    void studyEnded(int study, const dp::StudyResult& result);
    void historyFailed(const QString& message);
    // The trace folder could not be created: the run goes on untraced.
    void traceFailed(const QString& message);
    // After runEnded, for a run whose end the history could not write (said
    // by historyFailed): its record was written to `asideFile` instead
    // (run_aside_file.h), or nowhere, `asideFile` empty and `asideProblem` saying why.
    void runNotKept(const dp::RunRecord& record, const QString& asideFile, const QString& asideProblem);

private:
    struct QueuedStudy {
        int number = 0;
        dp::StudyPlan plan;
    };

    void startNextStudy();
    std::shared_ptr<dp::StudyRunner> runnerFor(const QString& traceFolder);
    void followRecord(const dp::RunRecord& record);
    void endRun(const dp::RunRecord& record, const QString& message, const QString& endNotKept);
    // The study in flight is over for the window: its runs left in the
    // queue dropped, the next study started.
    void finishStudy();
    void endStudy(int study, const dp::StudyResult& result, const QString& problem);
    void reportHistoryProblem(const QString& problem);

    QString traceFolder_;  // each run's Chrome step trace; empty: none
    RunHistory* history_;
    // The history's last problem in the run in flight, said once (a full
    // disk fails every epoch's write alike).
    QString lastHistoryProblem_;
    RunQueue queue_;
    std::deque<QueuedStudy> waiting_;  // studies not yet started, first first
    int lastStudyNumber_ = 0;
    std::optional<int> running_;            // the study on the training thread
    bool firstRunStarting_ = false;         // its first run's row left the queue as it was started
    std::optional<dp::RunRecord> current_;  // its run in flight, as last written
    // The user's edits of the run in flight, laid over its record's writes on
    // the training thread.
    std::shared_ptr<UserEditsInFlight> edits_;

    // Declared last so it is destroyed first: it stops the study and joins
    // the worker thread while the state above still exists.
    TrainingController training_;
};
