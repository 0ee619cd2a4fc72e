#include "train/recorded_run.h"

namespace dp {

RecordedRun::RecordedRun(RunRecord record, std::vector<std::unique_ptr<RunRecordSink>> sinks)
    : record_(std::move(record)), sinks_(std::move(sinks)) {
    record_.status = RunStatus::running;
    write();
}

void RecordedRun::add_epoch(const EpochMetrics& metrics) {
    record_.epochs.push_back(metrics);
    write();
}

void RecordedRun::set_step_totals(const RunSummary& summary) {
    record_.step_totals = summary.step_totals;
    record_.steps = summary.steps;
}

std::string RecordedRun::finish(RunOutcome outcome, const std::string& error) {
    switch (outcome) {
    case RunOutcome::finished: record_.status = RunStatus::finished; break;
    case RunOutcome::stopped: record_.status = RunStatus::stopped; break;
    case RunOutcome::failed: record_.status = RunStatus::failed; break;
    }
    record_.error = outcome == RunOutcome::failed ? error : std::string();
    std::string failed;
    for (const auto& sink : sinks_) {
        try {
            sink->write(record_);
        } catch (const std::exception& write_error) {
            if (failed.empty()) failed = write_error.what();
        }
    }
    return failed;
}

void RecordedRun::write() {
    for (const auto& sink : sinks_) sink->write(record_);
}

}  // namespace dp
