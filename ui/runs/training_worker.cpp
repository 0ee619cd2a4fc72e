#include "training_worker.h"

#include <exception>

namespace {

// Batches can finish every few microseconds (tiny models, batch size 1);
// signalling each one would flood the GUI thread's event queue.
constexpr qint64 kMinBatchSignalIntervalMs = 50;
// Step reports feed a picture, not a counter: a few per second is plenty.
constexpr qint64 kMinStepSignalIntervalMs = 100;
// Losses travel in groups: a chart repaint per group, not per batch.
constexpr qint64 kLossSignalIntervalMs = 150;

}  // namespace

void TrainingWorker::run(std::shared_ptr<dp::StudyRunner> runner, const dp::StudyPlan& plan, int study)
{
    dp::StudyResult result;
    QString problem;
    try {
        result = runner->run(plan, *this);
    } catch (const std::exception& error) {
        // A record sink that could not start a run: the study ends with nothing to show.
        problem = QString::fromStdString(error.what());
    }
    emit studyFinished(study, result, problem);
}

void TrainingWorker::reportHistoryProblem(const QString& problem)
{
    if (writingEnd_)
        endNotKept_ = problem;
    emit historyFailed(problem);
}

void TrainingWorker::on_run_started(const dp::PlannedRun& /*run*/, dp::Trainer& /*trainer*/)
{
    sinceBatchSignal_.invalidate();
    sinceStepSignal_.invalidate();
    sinceLossSignal_.start();
    batchClock_ = {};
    pendingLosses_.clear();
    writingEnd_ = false;
    endNotKept_.clear();
}

void TrainingWorker::on_run_finished(const dp::StudyRunResult& result)
{
    flushLosses();
    writingEnd_ = false;
    // The failure as the runner rendered it: settings named in the panel's words.
    const std::string message =
        result.outcome == dp::RunOutcome::failed ? result.failure : result.summary.summary_line();
    emit runEnded(result.record, QString::fromStdString(message), endNotKept_);
}

void TrainingWorker::on_log(const std::string& line)
{
    emit logLine(QString::fromStdString(line));
}

void TrainingWorker::on_batch(const dp::BatchProgress& progress)
{
    pendingLosses_.append(batchClock_.point(progress));
    const bool lastOfEpoch = progress.batch == progress.batches_per_epoch;
    // An epoch's losses land on the chart before its accuracy point, which
    // the record's write of the epoch brings (recordWritten).
    if (lastOfEpoch || sinceLossSignal_.elapsed() >= kLossSignalIntervalMs)
        flushLosses();

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
    flushLosses();  // any the epoch's last batch report did not carry
    batchClock_.end_epoch(metrics.seconds);
}

void TrainingWorker::on_predictions(const dp::PredictionSamples& samples)
{
    emit predictionsReported(samples);
}

void TrainingWorker::on_finished(const dp::RunSummary& /*summary*/)
{
    writingEnd_ = true;
}

void TrainingWorker::on_failed(const std::string& /*message*/)
{
    writingEnd_ = true;
}

void TrainingWorker::flushLosses()
{
    sinceLossSignal_.start();
    if (pendingLosses_.isEmpty())
        return;
    emit lossesReported(pendingLosses_);
    pendingLosses_.clear();
}
