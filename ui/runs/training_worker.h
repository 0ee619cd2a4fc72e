#pragma once

#include <QElapsedTimer>
#include <QList>
#include <QObject>
#include <QString>

#include <memory>

#include "loss_sample.h"
#include "train/train_observer.h"
#include "train/trainer.h"

// Runs dp::Trainer on the thread this object lives on and re-emits the
// trainer's observer callbacks as Qt signals. Receivers on the GUI thread get
// them through queued connections, so they never touch engine state directly.
// Per-batch events are thinned or batched so that a fast model cannot flood
// the GUI thread's event queue.
class TrainingWorker : public QObject, private dp::TrainObserver {
    Q_OBJECT

public:
    using QObject::QObject;

    // Call on this object's thread. Blocks until the run ends, which it
    // reports with exactly one of runFinished or runFailed.
    void run(std::shared_ptr<dp::Trainer> trainer);

signals:
    void logLine(const QString& line);
    // The latest batch, at most one signal per 50 ms (and each epoch's last).
    void batchProgress(int epoch, int batch, int batchesPerEpoch, double loss);
    // Every batch's loss, delivered in groups a few times a second.
    void lossesReported(const QList<LossSample>& samples);
    // One step's batch split and per-device timings, at most one per 100 ms.
    void stepReported(const dp::StepReport& report);
    // Qt 6's moc registers these types for queued delivery; no
    // Q_DECLARE_METATYPE is needed.
    void epochFinished(const dp::EpochMetrics& metrics);
    void predictionsReported(const dp::PredictionSamples& samples);
    // What the run measured: its epochs, d2l's summary line ("test acc:
    // 0.83, 2.7 sec/epoch on [cpu:0]") and its step timings.
    void runFinished(const dp::RunSummary& summary, bool stoppedEarly);
    void runFailed(const QString& message);

private:
    void on_log(const std::string& line) override;
    void on_batch(const dp::BatchProgress& progress) override;
    void on_step(const dp::StepReport& report) override;
    void on_epoch(const dp::EpochMetrics& metrics) override;
    void on_predictions(const dp::PredictionSamples& samples) override;
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
    dp::RunSummary summary_;
    QString failure_;
};
