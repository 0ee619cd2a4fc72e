#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QString>

#include <memory>

#include "train/train_observer.h"
#include "train/trainer.h"

// Runs dp::Trainer on the thread this object lives on and re-emits the
// trainer's observer callbacks as Qt signals. Receivers on the GUI thread get
// them through queued connections, so they never touch engine state directly.
class TrainingWorker : public QObject, private dp::TrainObserver {
    Q_OBJECT

public:
    using QObject::QObject;

    // Call on this object's thread. Blocks until the run ends, which it
    // reports with exactly one of runFinished or runFailed.
    void run(std::shared_ptr<dp::Trainer> trainer);

signals:
    void logLine(const QString& line);
    void batchProgress(int epoch, int batch, int batchesPerEpoch, double loss);
    // Qt 6's moc registers dp::EpochMetrics for queued delivery; no
    // Q_DECLARE_METATYPE is needed.
    void epochFinished(const dp::EpochMetrics& metrics);
    // summaryLine is d2l's "test acc: 0.83, 2.7 sec/epoch on [cpu:0]".
    // One step's batch split and per-device timings, at most one per 100 ms.
    void stepReported(const dp::StepReport& report);
    void runFinished(const QString& summaryLine, bool stoppedEarly);
    void runFailed(const QString& message);

private:
    void on_log(const std::string& line) override;
    void on_batch(const dp::BatchProgress& progress) override;
    void on_step(const dp::StepReport& report) override;
    void on_epoch(const dp::EpochMetrics& metrics) override;
    void on_finished(const dp::RunSummary& summary) override;
    void on_failed(const std::string& message) override;

    QElapsedTimer sinceBatchSignal_;
    QElapsedTimer sinceStepSignal_;
    QString summaryLine_;
    QString failure_;
};
