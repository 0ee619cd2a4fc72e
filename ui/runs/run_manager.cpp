#include "run_manager.h"

#include <QDir>

#include <utility>

#include "engine_message.h"
#include "run_aside_file.h"
#include "run_history.h"
#include "training_worker.h"
#include "user_edits_in_flight.h"
#include "workbench_record_sink.h"

namespace {

// Test images whose predictions the classroom strip shows after each epoch.
constexpr int kPreviewSamples = 12;

}  // namespace

RunManager::RunManager(RunHistory* history, QObject* parent)
    : QObject(parent), history_(history), edits_(std::make_shared<UserEditsInFlight>())
{
    const TrainingWorker* worker = training_.worker();
    connect(worker, &TrainingWorker::recordWritten, this, &RunManager::followRecord, Qt::QueuedConnection);
    connect(worker, &TrainingWorker::runEnded, this, &RunManager::endRun, Qt::QueuedConnection);
    connect(worker, &TrainingWorker::studyFinished, this, &RunManager::endStudy, Qt::QueuedConnection);
    connect(worker, &TrainingWorker::historyFailed, this, &RunManager::reportHistoryProblem,
            Qt::QueuedConnection);
}

RunManager::~RunManager() = default;

const TrainingWorker* RunManager::worker() const
{
    return training_.worker();
}

int RunManager::enqueue(dp::StudyPlan plan)
{
    for (dp::PlannedRun& point : plan.points)
        point.config.preview_samples = kPreviewSamples;
    const int number = ++lastStudyNumber_;
    for (const dp::PlannedRun& run : plan.runs())
        queue_.enqueue({run.config, run.comparison_group, run.name, number});
    waiting_.push_back({number, std::move(plan)});
    if (!isRunning())
        startNextStudy();
    return number;
}

void RunManager::stopAll()
{
    waiting_.clear();
    queue_.clear();
    if (isRunning())
        training_.requestStop();
}

std::shared_ptr<dp::StudyRunner> RunManager::runnerFor(const QString& traceFolder)
{
    const QString historyPath = history_ ? history_->path() : QString();
    TrainingWorker* worker = training_.worker();
    std::shared_ptr<const UserEditsInFlight> edits = edits_;
    return std::make_shared<dp::StudyRunner>(dp::StudyRunner::Options{
        .source = "dp-workbench",
        // Made on the training thread, as each run starts.
        .sinks =
            [historyPath, edits, worker](const dp::TrainConfig&) {
                std::vector<std::unique_ptr<dp::RunRecordSink>> sinks;
                sinks.push_back(std::make_unique<WorkbenchRecordSink>(historyPath, edits, *worker));
                return sinks;
            },
        .render_error = [](const std::string& message) { return engineMessage(message).toStdString(); },
        .trace_folder = traceFolder.toStdString(),
    });
}

void RunManager::startNextStudy()
{
    if (waiting_.empty())
        return;
    QueuedStudy next = std::move(waiting_.front());
    waiting_.pop_front();
    // Only when asked (Run > Write step traces): a trace the user never
    // opens cost a 600-epoch run most of its time and filled small /tmp folders.
    QString traceFolder = traceFolder_;
    if (!traceFolder.isEmpty() && !QDir().mkpath(traceFolder)) {
        emit traceFailed(tr("step trace not written: cannot create the folder %1").arg(traceFolder));
        traceFolder.clear();
    }
    running_ = next.number;
    // Its first run starts now: the queue shows the runs after it.
    queue_.takeNext();
    firstRunStarting_ = true;
    training_.start(runnerFor(traceFolder), std::move(next.plan), next.number);
    emit studyStarted(next.number);
}

void RunManager::renameCurrent(const std::string& id, const std::string& name)
{
    if (!isRunningRun(id))
        return;
    edits_->rename(id, name);
    current_->name = name;
}

void RunManager::annotateCurrent(const dp::RunRecord& record)
{
    if (!isRunningRun(record.id))
        return;
    edits_->annotate(record.id, record.tags, record.notes);
    current_->tags = record.tags;
    current_->notes = record.notes;
}

void RunManager::followRecord(const dp::RunRecord& record)
{
    if (record.status != dp::RunStatus::running)
        return;  // the end arrives with runEnded, its message beside it
    const bool started = !isRunningRun(record.id);
    current_ = edits_->appliedTo(record);  // edits made since the write left the training thread
    if (started) {
        if (!std::exchange(firstRunStarting_, false))
            queue_.takeNext();
        lastHistoryProblem_.clear();
        emit runStarted(*current_);
    } else {
        emit runUpdated(*current_);
    }
}

void RunManager::endRun(const dp::RunRecord& record, const QString& message, const QString& endNotKept)
{
    const dp::RunRecord ended = edits_->appliedTo(record);
    edits_->forget(record.id);
    current_.reset();
    const int study = running_.value_or(0);
    // A run that did not finish ends its study (study_runner.h), as does
    // its last: the manager is idle, or on to the next study, when the
    // window hears of the end. The worker starts that study once this one
    // has returned.
    if (running_ && (record.status != dp::RunStatus::finished || !queue_.holdsStudy(*running_)))
        finishStudy();
    emit runEnded(ended, message);
    emit studyRunEnded(study, ended);
    if (!endNotKept.isEmpty() && history_) {
        // Lest the run be gone at the next launch: its record where File > Import finds it.
        QString asideProblem;
        const QString aside = writeRunAside(ended, runAsideFolders(history_->path()), &asideProblem);
        emit runNotKept(ended, aside, asideProblem);
    }
}

void RunManager::finishStudy()
{
    queue_.removeStudy(*running_);  // the runs after one that did not finish
    running_.reset();
    startNextStudy();
}

void RunManager::endStudy(int study, const dp::StudyResult& result, const QString& problem)
{
    if (running_ == study)
        finishStudy();  // it ended before any run did (stopped before its first)
    if (!problem.isEmpty())
        emit historyFailed(problem);
    emit studyEnded(study, result);
}

void RunManager::reportHistoryProblem(const QString& problem)
{
    if (problem == lastHistoryProblem_)
        return;
    lastHistoryProblem_ = problem;
    emit historyFailed(problem);
}
