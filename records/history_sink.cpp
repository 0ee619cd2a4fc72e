#include "history_sink.h"

#include "core/error.h"
#include "run_history.h"

HistorySink::HistorySink(RunHistory& history, std::function<void(const std::string&)> on_error)
    : history_(history), on_error_(std::move(on_error))
{
}

void HistorySink::write(const dp::RunRecord& record)
{
    try {
        history_.save(record);
    } catch (const dp::Error& error) {
        on_error_(error.what());
    }
}
