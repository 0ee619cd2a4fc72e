#pragma once

#include <memory>

#include "record/run_record_sink.h"

class HistorySink;
class QCoreApplication;
class RunHistory;

namespace dp {

// dp-train's runs in the workbench's run history (records/), beside its own:
// the history sink with what a program without Qt needs around it (a Qt
// application object for the SQL driver) and a warning on stderr, once, when
// the history cannot keep the run, and again if it cannot keep its end. The
// run goes on either way.
class HistoryRecording final : public RunRecordSink {
public:
    HistoryRecording();
    ~HistoryRecording() override;
    void write(const RunRecord& record) override;
    bool holds_failure(const std::string& id) const override;

private:
    void warn(const std::string& what);

    std::unique_ptr<QCoreApplication> application_;  // Qt SQL loads its driver through one
    std::unique_ptr<RunHistory> history_;             // null when it could not be opened
    std::unique_ptr<HistorySink> sink_;
    bool warned_ = false;
    bool writing_end_ = false;  // the write in progress is the run's last
};

}  // namespace dp
