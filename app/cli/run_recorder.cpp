#include "cli/run_recorder.h"

#ifdef DP_HAVE_HISTORY
#include "cli/history_sink.h"
#endif

namespace dp {

std::vector<std::unique_ptr<RunRecordSink>> record_sinks(const TrainConfig& config,
                                                         [[maybe_unused]] bool history) {
    std::vector<std::unique_ptr<RunRecordSink>> sinks;
    if (!config.record_path.empty())
        sinks.push_back(std::make_unique<JsonRecordFile>(config.record_path));
#ifdef DP_HAVE_HISTORY
    if (history) sinks.push_back(std::make_unique<HistorySink>());
#endif
    return sinks;
}

RunRecorder::RunRecorder(RunRecord record, std::vector<std::unique_ptr<RunRecordSink>> sinks)
    : record_(std::move(record)), sinks_(std::move(sinks)) {
    write();
}

void RunRecorder::add_epoch(const EpochMetrics& metrics) {
    record_.epochs.push_back(metrics);
    write();
}

void RunRecorder::finish(RunOutcome outcome, const std::string& error) {
    switch (outcome) {
    case RunOutcome::finished: record_.status = "finished"; break;
    case RunOutcome::stopped: record_.status = "stopped"; break;
    case RunOutcome::failed: record_.status = "failed"; break;
    }
    record_.error = error;
    write();
}

void RunRecorder::write() {
    for (const auto& sink : sinks_) sink->write(record_);
}

}  // namespace dp
