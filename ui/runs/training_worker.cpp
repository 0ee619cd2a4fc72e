#include "training_worker.h"

#include "engine_message.h"

namespace {

// Batches can finish every few microseconds (tiny models, batch size 1);
// signalling each one would flood the GUI thread's event queue.
constexpr qint64 kMinBatchSignalIntervalMs = 50;
// Step reports feed a picture, not a counter: a few per second is plenty.
constexpr qint64 kMinStepSignalIntervalMs = 100;
// Losses travel in groups: a chart repaint per group, not per batch.
constexpr qint64 kLossSignalIntervalMs = 150;

}  // namespace

void TrainingWorker::run(std::shared_ptr<dp::Trainer> trainer)
{
    summary_ = {};
    failure_.clear();
    sinceBatchSignal_.invalidate();
    sinceStepSignal_.invalidate();
    sinceLossSignal_.start();
    batchClock_ = {};
    pendingLosses_.clear();

    // Trainer::run reports errors through on_failed, never by throwing.
    const dp::RunOutcome outcome = trainer->run(*this);
    flushLosses();
    if (outcome == dp::RunOutcome::failed)
        emit runFailed(failure_);
    else
        emit runFinished(summary_, outcome == dp::RunOutcome::stopped);
}

void TrainingWorker::on_log(const std::string& line)
{
    emit logLine(QString::fromStdString(line));
}

void TrainingWorker::on_batch(const dp::BatchProgress& progress)
{
    pendingLosses_.append(batchClock_.point(progress));
    if (sinceLossSignal_.elapsed() >= kLossSignalIntervalMs)
        flushLosses();

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
    // The epoch's losses land on the chart before its accuracy point.
    flushLosses();
    batchClock_.end_epoch(metrics.seconds);
    emit epochFinished(metrics);
}

void TrainingWorker::on_predictions(const dp::PredictionSamples& samples)
{
    emit predictionsReported(samples);
}

void TrainingWorker::on_finished(const dp::RunSummary& summary)
{
    summary_ = summary;
}

void TrainingWorker::on_failed(const std::string& message)
{
    failure_ = engineMessage(message);  // settings named in the panel's words
}

void TrainingWorker::flushLosses()
{
    sinceLossSignal_.start();
    if (pendingLosses_.isEmpty())
        return;
    emit lossesReported(pendingLosses_);
    pendingLosses_.clear();
}
