#pragma once

#include <QElapsedTimer>
#include <QList>
#include <QObject>
#include <QString>

#include <memory>

#include "loss_sample.h"
#include "record/run_record.h"
#include "study/study_runner.h"

// Runs a study (dp::StudyRunner: its runs, their records and load, all in
// the engine) on the thread this object lives on, and re-emits the study's
// events as Qt signals. Receivers on the GUI thread get them through queued
// connections, so they never touch engine state directly. Per-batch events
// are thinned or batched so that a fast model cannot flood the GUI thread's
// event queue.
class TrainingWorker : public QObject, private dp::StudyObserver {
    Q_OBJECT

public:
    using QObject::QObject;

    // Call on this object's thread. Blocks until the study ends, which it
    // reports with studyFinished; each run's end comes before as runEnded.
    void run(std::shared_ptr<dp::StudyRunner> runner, const dp::StudyPlan& plan, int study);

    // From a record sink, on this object's thread: a problem writing the
    // run history. Said with historyFailed; one met while the run's end is
    // written is that run's runEnded `endNotKept`.
    void reportHistoryProblem(const QString& problem);

signals:
    void logLine(const QString& line);
    // The latest batch, at most one signal per 50 ms (and each epoch's last).
    void batchProgress(int epoch, int batch, int batchesPerEpoch, double loss);
    // Every batch's loss, delivered in groups a few times a second.
    void lossesReported(const QList<LossSample>& samples);
    // One step's batch split and per-device timings, at most one per 100 ms.
    void stepReported(const dp::StepReport& report);
    void predictionsReported(const dp::PredictionSamples& samples);
    // Each write of a run's record as its sinks get it (study_runner.h): its
    // start, every epoch, its end. Qt 6's moc registers these types for
    // queued delivery; no Q_DECLARE_METATYPE is needed.
    void recordWritten(const dp::RunRecord& record);
    // A run's end: its record as kept, d2l's summary line ("test acc: 0.83,
    // 2.7 sec/epoch on [cpu:0]") or the error of a failed run, and the
    // history's problem if it could not keep the end ("" if it did).
    void runEnded(const dp::RunRecord& record, const QString& message, const QString& endNotKept);
    void historyFailed(const QString& problem);
    // The study's end, with its table; `problem` is why it could not run
    // at all ("" when it ran).
    void studyFinished(int study, const dp::StudyResult& result, const QString& problem);

private:
    void on_run_started(const dp::PlannedRun& run, dp::Trainer& trainer) override;
    void on_run_finished(const dp::StudyRunResult& result) override;
    void on_log(const std::string& line) override;
    void on_batch(const dp::BatchProgress& progress) override;
    void on_step(const dp::StepReport& report) override;
    void on_predictions(const dp::PredictionSamples& samples) override;
    void on_epoch(const dp::EpochMetrics& metrics) override;
    void on_finished(const dp::RunSummary& summary) override;
    void on_failed(const std::string& message) override;

    void flushLosses();

    QElapsedTimer sinceBatchSignal_;
    QElapsedTimer sinceStepSignal_;
    QElapsedTimer sinceLossSignal_;
    // Training time: completed epochs' seconds plus the clock of the epoch in
    // progress, which starts at its first batch report (so it runs up to one
    // batch behind; evaluation time stays out, as in EpochMetrics::seconds).
    dp::BatchLossClock batchClock_;
    QList<LossSample> pendingLosses_;
    // Between the trainer's end (on_finished, on_failed) and on_run_finished
    // the run's end is being written: a history problem then is the end's.
    bool writingEnd_ = false;
    QString endNotKept_;
};
