#include "history_sink.h"

#include <thread>

#include "core/error.h"
#include "run_history.h"

HistorySink::HistorySink(RunHistory& history, std::function<void(const std::string&)> on_error,
                         std::chrono::milliseconds final_write_patience)
    : history_(history), on_error_(std::move(on_error)), final_write_patience_(final_write_patience)
{
}

void HistorySink::write(const dp::RunRecord& record)
{
    const bool last = record.status != dp::RunStatus::running;
    const auto deadline = std::chrono::steady_clock::now() + final_write_patience_;
    for (;;) {
        try {
            history_.save(record);
            return;
        } catch (const dp::Error& error) {
            if (!last || std::chrono::steady_clock::now() >= deadline) {
                on_error_(last ? std::string(error.what()) + "; the history shows the run as it "
                                                              "was before its end"
                               : std::string(error.what()));
                return;
            }
        }
        // Each save already waited the database's busy timeout; a pause
        // between tries lets the other writer finish.
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
}
