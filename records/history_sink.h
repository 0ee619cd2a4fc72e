#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "train/recorded_run.h"

class RunHistory;

// A run's record kept in the run history (dp-train's runs and the
// workbench's alike). Never fails the run: a write that fails (the database
// locked by another process past its timeout, a full disk) is reported to
// `on_error`, and the next write tries again. The last write (the run's end)
// has no next one, so it keeps trying for up to `final_write_patience`:
// otherwise a history locked while the run ends would show it "running"
// with the epochs of the last write that landed, for ever.
class HistorySink final : public dp::RunRecordSink {
public:
    HistorySink(RunHistory& history, std::function<void(const std::string&)> on_error,
                std::chrono::milliseconds final_write_patience = std::chrono::seconds(60));
    void write(const dp::RunRecord& record) override;

private:
    RunHistory& history_;
    std::function<void(const std::string&)> on_error_;
    std::chrono::milliseconds final_write_patience_;
};
