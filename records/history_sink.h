#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "train/recorded_run.h"

class RunHistory;

// A run's record kept in the run history (dp-train's runs and the
// workbench's alike). Never fails the run, and never holds it up: a write
// during the run (after each epoch) tries once without waiting for another
// program's lock; a locked history is not reported, as the next write
// carries the whole record again. The last write (the run's end) has no next
// one, so while the history is locked it keeps trying for up to
// `final_write_patience`, or until `stop_waiting` says so (dp-train: a
// further signal), lest a history locked as the run ends show it "running"
// for ever. Failures that no retry can clear (a read-only or full disk, a
// damaged file) are reported to `on_error` at once, never retried. A failed
// end says what the history holds instead: the run as it was before its end,
// or nothing at all where no write of it ever landed.
class HistorySink final : public dp::RunRecordSink {
public:
    HistorySink(RunHistory& history, std::function<void(const std::string&)> on_error,
                std::chrono::milliseconds final_write_patience = std::chrono::seconds(60),
                std::function<bool()> stop_waiting = {});
    void write(const dp::RunRecord& record) override;

private:
    void write_end(const dp::RunRecord& record);
    // What the history holds of the run, for the message of a failed end.
    std::string held() const;

    RunHistory& history_;
    std::function<void(const std::string&)> on_error_;
    std::chrono::milliseconds final_write_patience_;
    std::function<bool()> stop_waiting_;
    bool held_ = false;  // a write of this run reached the history
};
