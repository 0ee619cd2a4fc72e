#include "cli/history_recording.h"

#include <QCoreApplication>

#include <cstdio>
#include <utility>

#include "cli/interrupt.h"
#include "core/error.h"
#include "history_sink.h"
#include "run_history.h"

namespace dp {
namespace {

int application_argc = 1;
char application_name[] = "dp-train";
char* application_argv[] = {application_name, nullptr};

}  // namespace

HistoryRecording::HistoryRecording() {
    if (!QCoreApplication::instance())
        application_ = std::make_unique<QCoreApplication>(application_argc, application_argv);
    try {
        history_ = std::make_unique<RunHistory>();
        // A signal after the one that stopped the run ends the wait for a locked history.
        sink_ = std::make_unique<HistorySink>(
            *history_, [this](const std::string& what) { warn(what); }, std::chrono::seconds(60),
            hurry_requested);
    } catch (const Error& error) {
        warn(error.what());
    }
}

HistoryRecording::~HistoryRecording() = default;

void HistoryRecording::write(const RunRecord& record) {
    writing_end_ = record.status != RunStatus::running;
    if (sink_) sink_->write(record);
}

bool HistoryRecording::holds_failure(const std::string& id) const {
    try {
        const std::optional<RunRecord> stored = history_ ? history_->run(id) : std::nullopt;
        return stored && stored->status == RunStatus::failed;
    } catch (const std::exception&) {
        return false;
    }
}

void HistoryRecording::warn(const std::string& what) {
    // Once a run (the next writes try again quietly), but a lost end always.
    if (std::exchange(warned_, true) && !writing_end_) return;
    std::fprintf(stderr, "dp-train: warning: the history did not keep the run (%s); use "
                         "--no-history to skip it\n", what.c_str());
}

}  // namespace dp
