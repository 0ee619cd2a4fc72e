#pragma once

#include <memory>

#include "cli/run_recorder.h"

class QCoreApplication;
class RunHistory;

namespace dp {

// The workbench's run history (ui/history), so dp-train's runs appear in the
// workbench beside its own. Never fails a run: if the database cannot be
// opened or written, one warning goes to stderr and the run goes on.
class HistorySink final : public RunRecordSink {
public:
    HistorySink();
    ~HistorySink() override;
    void write(const RunRecord& record) override;

private:
    void warn(const char* what);

    std::unique_ptr<QCoreApplication> application_;  // Qt SQL loads its driver through one
    std::unique_ptr<RunHistory> history_;             // null once it failed
};

}  // namespace dp
