#include "training_worker.h"

namespace {

// Batches can finish every few microseconds (tiny models, batch size 1);
// signalling each one would flood the GUI thread's event queue.
constexpr qint64 kMinBatchSignalIntervalMs = 30;
// Step reports feed a picture, not a counter: a few per second is plenty.
constexpr qint64 kMinStepSignalIntervalMs = 100;

}  // namespace

void TrainingWorker::run(std::shared_ptr<dp::Trainer> trainer)
{
    summaryLine_.clear();
    failure_.clear();
    sinceBatchSignal_.invalidate();
    sinceStepSignal_.invalidate();

    // Trainer::run reports errors through on_failed, never by throwing.
    const dp::RunOutcome outcome = trainer->run(*this);
    if (outcome == dp::RunOutcome::failed)
        emit runFailed(failure_);
    else
        emit runFinished(summaryLine_, outcome == dp::RunOutcome::stopped);
}

void TrainingWorker::on_log(const std::string& line)
{
    emit logLine(QString::fromStdString(line));
}

void TrainingWorker::on_batch(const dp::BatchProgress& progress)
{
    const bool lastOfEpoch = progress.batch == progress.batches_per_epoch;
    if (!lastOfEpoch && sinceBatchSignal_.isValid()
        && sinceBatchSignal_.elapsed() < kMinBatchSignalIntervalMs)
        return;
    sinceBatchSignal_.start();
    emit batchProgress(progress.epoch, progress.batch, progress.batches_per_epoch, progress.loss);
}

void TrainingWorker::on_step(const dp::StepReport& report)
{
    if (sinceStepSignal_.isValid() && sinceStepSignal_.elapsed() < kMinStepSignalIntervalMs)
        return;
    sinceStepSignal_.start();
    emit stepReported(report);
}

void TrainingWorker::on_epoch(const dp::EpochMetrics& metrics)
{
    emit epochFinished(metrics);
}

void TrainingWorker::on_finished(const dp::RunSummary& summary)
{
    summaryLine_ = QString::fromStdString(summary.summary_line());
}

void TrainingWorker::on_failed(const std::string& message)
{
    failure_ = QString::fromStdString(message);
}
