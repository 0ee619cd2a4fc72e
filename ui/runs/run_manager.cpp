#include "run_manager.h"

#include <QDir>

#include "core/error.h"
#include "history_sink.h"
#include "run_aside_file.h"
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
    // Kept in the record (decimated) so that the run's loss chart comes back per batch.
    connect(
        worker, &TrainingWorker::lossesReported, this,
        [this](const QList<LossSample>& samples) {
            if (current_)
                for (const LossSample& sample : samples)
                    current_->add_batch_loss(sample);
        },
        Qt::QueuedConnection);
    connect(
        worker, &TrainingWorker::runFinished, this,
        [this](const dp::RunSummary& summary, bool stoppedEarly) {
            // Kept in the record for the speedup-gap breakdown of a comparison.
            if (current_)
                current_->set_step_totals(summary);
            endRun(stoppedEarly ? dp::RunOutcome::stopped : dp::RunOutcome::finished,
                   QString::fromStdString(summary.summary_line()));
        },
        Qt::QueuedConnection);
    connect(
        worker, &TrainingWorker::runFailed, this,
        [this](const QString& message) { endRun(dp::RunOutcome::failed, message); },
        Qt::QueuedConnection);
}

RunManager::~RunManager()
{
    if (!current_)
        return;
    training_.requestStop();
    current_->finish(dp::RunOutcome::stopped, {});
}

void RunManager::enqueue(const dp::TrainConfig& config, const std::string& comparisonGroup,
                         const std::string& name)
{
    queue_.enqueue({config, comparisonGroup, name});
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
    dp::RunRecord record = dp::start_run_record(next->config, "dp-workbench");
    // Only when asked (Run > Write step traces): a trace the user never
    // opens cost a 600-epoch run most of its time and filled small /tmp folders.
    if (!traceFolder_.isEmpty()) {
        if (QDir().mkpath(traceFolder_))
            record.config.trace_path = next->config.trace_path =
                QDir(traceFolder_)
                    .filePath(QString::fromStdString(record.id) + QStringLiteral(".trace.json"))
                    .toStdString();
        else
            emit traceFailed(tr("step trace not written: cannot create the folder %1").arg(traceFolder_));
    }
    record.comparison_group = next->comparisonGroup;
    record.name = next->name;
    std::vector<std::unique_ptr<dp::RunRecordSink>> sinks;
    if (history_)
        // No retries at the run's end: the sink writes on the GUI thread,
        // which must not wait; the window keeps the run and reports the failure.
        sinks.push_back(std::make_unique<HistorySink>(
            *history_,
            [this](const std::string& what) {
                // A full disk fails every epoch's write alike: said once, not after every epoch.
                const QString problem = QString::fromStdString(what);
                if (problem == lastHistoryProblem_)
                    return;
                lastHistoryProblem_ = problem;
                emit historyFailed(problem);
            },
            std::chrono::milliseconds(0)));
    lastHistoryProblem_.clear();
    current_.emplace(std::move(record), std::move(sinks));
    training_.start(next->config);
    emit runStarted(current_->record());
}

void RunManager::renameCurrent(const std::string& id, const std::string& name)
{
    if (isRunningRun(id))
        current_->set_name(name);
}

void RunManager::annotateCurrent(const dp::RunRecord& record)
{
    if (isRunningRun(record.id))
        current_->set_tags_and_notes(record.tags, record.notes);
}

void RunManager::recordEpoch(const dp::EpochMetrics& metrics)
{
    if (!current_)
        return;
    current_->add_epoch(metrics);
    emit runUpdated(current_->record());
}

void RunManager::endRun(dp::RunOutcome outcome, const QString& message)
{
    if (!current_)
        return;
    lastHistoryProblem_.clear();
    current_->finish(outcome, message.toStdString());
    const dp::RunRecord ended = current_->record();
    const QString notKept = lastHistoryProblem_;
    current_.reset();
    emit runEnded(ended, message);
    if (!notKept.isEmpty() && history_) {
        // Lest the run be gone at the next launch: its record where File > Import finds it.
        QString asideProblem;
        const QString aside = writeRunAside(ended, runAsideFolders(history_->path()), &asideProblem);
        emit runNotKept(ended, aside, asideProblem);
    }
    startNext();
}
