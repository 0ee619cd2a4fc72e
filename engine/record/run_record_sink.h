#pragma once

#include <filesystem>
#include <string>

#include "record/run_record.h"

namespace dp {

// A place a run's record is kept: each write replaces the previous one.
// Every front end's records go through this one interface: dp-train's
// --record file and history, the workbench's history, a study's runs
// (study/study_runner.h).
class RunRecordSink {
public:
    virtual ~RunRecordSink() = default;
    virtual void write(const RunRecord& record) = 0;
    // Whether the sink already keeps run `id` as failed: written by another
    // rank of an MPI job, whose failure RecordedRun never replaces.
    virtual bool holds_failure(const std::string& /*id*/) const { return false; }
};

// dp-train --record PATH: the record as JSON, written atomically.
class JsonRecordFile final : public RunRecordSink {
public:
    explicit JsonRecordFile(std::filesystem::path file) : file_(std::move(file)) {}
    void write(const RunRecord& record) override;
    bool holds_failure(const std::string& id) const override;

private:
    std::filesystem::path file_;
};

}  // namespace dp
