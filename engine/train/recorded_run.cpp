#include "train/recorded_run.h"

#include "devices/device.h"

namespace dp {

RecordedRun::RecordedRun(RunRecord record, std::vector<std::unique_ptr<RunRecordSink>> sinks)
    : record_(std::move(record)), started_(read_cpu_clock()), sinks_(std::move(sinks)) {
    record_.status = RunStatus::running;
    record_.usable_cores = int(usable_cores().size());
    write();
}

void RecordedRun::add_epoch(const EpochMetrics& metrics) {
    record_.epochs.push_back(metrics);
    record_.batch_losses = batch_losses_.points();
    measure_load();
    write();
}

void RecordedRun::add_batch_loss(const BatchLossPoint& point) { batch_losses_.append(point); }

void RecordedRun::set_step_totals(const RunSummary& summary) {
    record_.step_totals = summary.step_totals;
    record_.steps = summary.steps;
    record_.step_epochs = summary.step_epochs;
}

std::string RecordedRun::finish(RunOutcome outcome, const std::string& error) {
    switch (outcome) {
    case RunOutcome::finished: record_.status = RunStatus::finished; break;
    case RunOutcome::stopped: record_.status = RunStatus::stopped; break;
    case RunOutcome::failed: record_.status = RunStatus::failed; break;
    }
    record_.error = outcome == RunOutcome::failed ? error : std::string();
    record_.batch_losses = batch_losses_.points();
    measure_load();
    std::string failed;
    for (const auto& sink : sinks_) {
        try {
            if (may_write(*sink)) sink->write(record_);
        } catch (const std::exception& write_error) {
            if (failed.empty()) failed = write_error.what();
        }
    }
    return failed;
}

void RecordedRun::count_as_own(std::vector<std::int64_t> pids) {
    own_processes_ = std::move(pids);
    started_ = read_cpu_clock(own_processes_);
}

void RecordedRun::measure_load() {
    const MachineLoad load = machine_load_between(started_, read_cpu_clock(own_processes_));
    if (!load.known) return;
    load_ = load;
    record_.other_cores = load.other_cores;
    record_.busy = load.busy();
}

void RecordedRun::write() {
    for (const auto& sink : sinks_)
        if (may_write(*sink)) sink->write(record_);
}

bool RecordedRun::may_write(const RunRecordSink& sink) const {
    // Only a job of several processes has another rank that records; a
    // single process reads nothing back at its epochs.
    return record_.processes < 2 || record_.status == RunStatus::failed ||
           !sink.holds_failure(record_.id);
}

}  // namespace dp
