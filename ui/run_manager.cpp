#include "run_manager.h"

#include "core/error.h"
#include "run_history.h"
#include "training_worker.h"

namespace {

// Test images whose predictions the classroom strip shows after each epoch.
constexpr int kPreviewSamples = 12;

}  // namespace

RunManager::RunManager(RunHistory* history, QObject* parent)
    : QObject(parent), history_(history)
{
    const TrainingWorker* worker = training_.worker();
    connect(worker, &TrainingWorker::epochFinished, this, &RunManager::recordEpoch,
            Qt::QueuedConnection);
    connect(
        worker, &TrainingWorker::runFinished, this,
        [this](const QString& summaryLine, bool stoppedEarly) {
            endRun(stoppedEarly ? "stopped" : "finished", summaryLine);
        },
        Qt::QueuedConnection);
    connect(
        worker, &TrainingWorker::runFailed, this,
        [this](const QString& message) { endRun("failed", message); }, Qt::QueuedConnection);
}

void RunManager::enqueue(const dp::TrainConfig& config, const std::string& comparisonGroup)
{
    queue_.enqueue({config, comparisonGroup});
    if (!isRunning())
        startNext();
}

void RunManager::stopAll()
{
    queue_.clear();
    if (isRunning())
        training_.requestStop();
}

void RunManager::startNext()
{
    std::optional<QueuedRun> next = queue_.takeNext();
    if (!next)
        return;
    next->config.preview_samples = kPreviewSamples;
    current_ = dp::start_run_record(next->config, "dp-workbench");
    current_->comparison_group = next->comparisonGroup;
    save(*current_);
    training_.start(next->config);
    emit runStarted(*current_);
}

void RunManager::recordEpoch(const dp::EpochMetrics& metrics)
{
    if (!current_)
        return;
    current_->epochs.push_back(metrics);
    save(*current_);
    emit runUpdated(*current_);
}

void RunManager::endRun(const std::string& status, const QString& message)
{
    if (!current_)
        return;
    dp::RunRecord ended = std::move(*current_);
    current_.reset();
    ended.status = status;
    if (status == "failed")
        ended.error = message.toStdString();
    save(ended);
    emit runEnded(ended, message);
    startNext();
}

void RunManager::save(const dp::RunRecord& record)
{
    if (!history_)
        return;
    try {
        history_->save(record);
    } catch (const dp::Error& error) {
        emit historyFailed(QString::fromUtf8(error.what()));
    }
}
