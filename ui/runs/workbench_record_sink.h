#pragma once

#include <QString>

#include <memory>

#include "record/run_record_sink.h"

class HistorySink;
class RunHistory;
class TrainingWorker;
class UserEditsInFlight;

// Where the workbench keeps a run of a study, on the training thread: each
// write of the record, with the user's edits laid over it, goes to the run
// history (a connection of this thread's own, Qt SQL's rule) and to the
// window (TrainingWorker::recordWritten, queued to the GUI thread). A
// history that cannot be opened or written fails no run: the worker says
// why (TrainingWorker::reportHistoryProblem) and the run goes on, shown.
class WorkbenchRecordSink final : public dp::RunRecordSink {
public:
    // `historyPath` empty: no history (the window could not open it either).
    WorkbenchRecordSink(const QString& historyPath, std::shared_ptr<const UserEditsInFlight> edits,
                        TrainingWorker& worker);
    ~WorkbenchRecordSink() override;
    void write(const dp::RunRecord& record) override;

private:
    std::shared_ptr<const UserEditsInFlight> edits_;
    TrainingWorker& worker_;
    std::unique_ptr<RunHistory> history_;
    std::unique_ptr<HistorySink> historySink_;
    QString openProblem_;  // why the history could not be opened; "" if it was, or none was asked for
};
