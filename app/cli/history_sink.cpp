#include "cli/history_sink.h"

#include <QCoreApplication>

#include <cstdio>

#include "core/error.h"
#include "run_history.h"

namespace dp {
namespace {

int application_argc = 1;
char application_name[] = "dp-train";
char* application_argv[] = {application_name, nullptr};

}  // namespace

HistorySink::HistorySink() {
    if (!QCoreApplication::instance())
        application_ = std::make_unique<QCoreApplication>(application_argc, application_argv);
    try {
        history_ = std::make_unique<RunHistory>();
    } catch (const Error& error) {
        warn(error.what());
    }
}

HistorySink::~HistorySink() = default;

void HistorySink::write(const RunRecord& record) {
    if (!history_) return;
    try {
        history_->save(record);
    } catch (const Error& error) {
        history_.reset();
        warn(error.what());
    }
}

void HistorySink::warn(const char* what) {
    std::fprintf(stderr, "dp-train: warning: run not kept in the history (%s); use --no-history "
                         "to skip it\n", what);
}

}  // namespace dp
