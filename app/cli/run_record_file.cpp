#include "cli/run_record_file.h"

namespace dp {

RunRecordFile::RunRecordFile(std::filesystem::path file, RunRecord record)
    : file_(std::move(file)), record_(std::move(record)) {
    write_run_record(file_, record_);
}

void RunRecordFile::add_epoch(const EpochMetrics& metrics) {
    record_.epochs.push_back(metrics);
    write_run_record(file_, record_);
}

void RunRecordFile::finish(RunOutcome outcome, const std::string& error) {
    switch (outcome) {
    case RunOutcome::finished: record_.status = "finished"; break;
    case RunOutcome::stopped: record_.status = "stopped"; break;
    case RunOutcome::failed: record_.status = "failed"; break;
    }
    record_.error = error;
    write_run_record(file_, record_);
}

}  // namespace dp
