#include "history_sink.h"

#include "core/error.h"
#include "run_history.h"

namespace {

// The end's tries wait this long each for the lock, so that a stop request
// between them is seen soon.
constexpr std::chrono::milliseconds kEndTryLockWait{250};

}  // namespace

HistorySink::HistorySink(RunHistory& history, std::function<void(const std::string&)> on_error,
                         std::chrono::milliseconds final_write_patience,
                         std::function<bool()> stop_waiting)
    : history_(history), on_error_(std::move(on_error)), final_write_patience_(final_write_patience),
      stop_waiting_(std::move(stop_waiting))
{
}

void HistorySink::write(const dp::RunRecord& record)
{
    if (record.status != dp::RunStatus::running)
        return write_end(record);
    try {
        history_.save(record, std::chrono::milliseconds(0));
        held_ = true;
    } catch (const RunHistoryLocked&) {
        // Another program writes: this epoch lands with the next write.
    } catch (const dp::Error& error) {
        on_error_(error.what());
    }
}

std::string HistorySink::held() const
{
    return held_ ? "; the history shows the run as it was before its end" : "; the history does not hold the run";
}

void HistorySink::write_end(const dp::RunRecord& record)
{
    const auto deadline = std::chrono::steady_clock::now() + final_write_patience_;
    for (;;) {
        try {
            history_.save(record, kEndTryLockWait);
            held_ = true;
            return;
        } catch (const RunHistoryLocked& error) {
            if (std::chrono::steady_clock::now() < deadline && !(stop_waiting_ && stop_waiting_()))
                continue;
            on_error_(error.what() + held());
            return;
        } catch (const dp::Error& error) {
            on_error_(error.what() + held());
            return;
        }
    }
}
