#pragma once

#include <functional>
#include <string>

#include "train/recorded_run.h"

class RunHistory;

// A run's record kept in the run history (dp-train's runs and the
// workbench's alike). Never fails the run: a write that fails (the database
// locked by another process past its timeout, a full disk) is reported to
// `on_error`, and the next write tries again, so the record's end lands
// once the database is free.
class HistorySink final : public dp::RunRecordSink {
public:
    HistorySink(RunHistory& history, std::function<void(const std::string&)> on_error);
    void write(const dp::RunRecord& record) override;

private:
    RunHistory& history_;
    std::function<void(const std::string&)> on_error_;
};
