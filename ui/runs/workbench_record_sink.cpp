#include "workbench_record_sink.h"

#include "core/error.h"
#include "history_sink.h"
#include "run_history.h"
#include "training_worker.h"
#include "user_edits_in_flight.h"

WorkbenchRecordSink::WorkbenchRecordSink(const QString& historyPath,
                                         std::shared_ptr<const UserEditsInFlight> edits,
                                         TrainingWorker& worker)
    : edits_(std::move(edits)), worker_(worker)
{
    if (historyPath.isEmpty())
        return;
    try {
        history_ = std::make_unique<RunHistory>(historyPath);
    } catch (const dp::Error& error) {
        openProblem_ = QString::fromUtf8(error.what());
        worker_.reportHistoryProblem(openProblem_);
        return;
    }
    // The end's write may wait for another program's lock here, off the
    // GUI thread, as dp-train's does (at most RunHistory::kLockWait).
    historySink_ = std::make_unique<HistorySink>(
        *history_,
        [this](const std::string& problem) { worker_.reportHistoryProblem(QString::fromStdString(problem)); },
        RunHistory::kLockWait);
}

WorkbenchRecordSink::~WorkbenchRecordSink() = default;

void WorkbenchRecordSink::write(const dp::RunRecord& record)
{
    const dp::RunRecord edited = edits_->appliedTo(record);
    if (historySink_)
        historySink_->write(edited);
    else if (!openProblem_.isEmpty() && edited.status != dp::RunStatus::running)
        // Said again for the end, which is then kept aside (RunManager::runNotKept).
        worker_.reportHistoryProblem(openProblem_ + QStringLiteral("; the history does not hold the run"));
    emit worker_.recordWritten(edited);
}
