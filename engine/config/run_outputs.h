#pragma once

#include <vector>

#include "io/output_file.h"
#include "config/train_config.h"

namespace dp {

// The files a run of `config` writes (checkpoint, record, trace), named by
// their settings.
std::vector<NamedPath> run_outputs(const TrainConfig& config);

// The program's own files, which no output may replace: the run history
// with its journal files, the kernel cache with its lock.
std::vector<NamedPath> program_files();

// The files no output of a run of `config` may replace: its inputs (the
// checkpoint it loads, the data set's files) and program_files().
std::vector<NamedPath> files_outputs_must_keep(const TrainConfig& config);

// The one output-path rule (io/output_file.h: check_output_paths) for a run
// of `config`, with `more_outputs` (dp-train's --report) counted as its outputs.
void check_run_outputs(const TrainConfig& config, std::vector<NamedPath> more_outputs = {});

}  // namespace dp
