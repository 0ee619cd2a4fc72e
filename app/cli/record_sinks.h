#pragma once

#include <memory>
#include <vector>

#include "config/train_config.h"
#include "record/run_record_sink.h"

namespace dp {

// Where dp-train keeps the record of a run of `config`: its --record file,
// and the history database the workbench shows unless `history` is false
// (or dp-train was built without Qt SQL).
std::vector<std::unique_ptr<RunRecordSink>> record_sinks(const TrainConfig& config, bool history);

}  // namespace dp
