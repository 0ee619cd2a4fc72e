#pragma once

#include <filesystem>
#include <string>

#include "train/run_record.h"
#include "train/trainer.h"

namespace dp {

// dp-train --record: the run record on disk, rewritten (atomically) when the
// run starts, after every epoch and at the end, so a run that is killed
// keeps the epochs it completed.
class RunRecordFile {
public:
    RunRecordFile(std::filesystem::path file, RunRecord record);

    void add_epoch(const EpochMetrics& metrics);
    // Status "finished", "stopped" or "failed" with `error`.
    void finish(RunOutcome outcome, const std::string& error);

private:
    std::filesystem::path file_;
    RunRecord record_;
};

}  // namespace dp
