#include "config/run_outputs.h"

#include "backend/kernel_choices.h"
#include "core/setting_ref.h"
#include "io/workbench_files.h"
#include "config/training_data.h"

namespace dp {

std::vector<NamedPath> run_outputs(const TrainConfig& config) {
    return {{config.save_path, setting("save_path"), "save_path"},
            {config.record_path, setting("record_path"), "record_path"},
            {config.trace_path, setting("trace_path"), "trace_path"}};
}

std::vector<NamedPath> program_files() {
    std::vector<NamedPath> kept;
    const std::filesystem::path history = history_database_path();
    for (const char* suffix : {"", "-journal", "-wal", "-shm"})
        kept.push_back({history.string() + suffix, "the run history"});
    const std::filesystem::path kernel_cache = default_kernel_cache_path();
    kept.push_back({kernel_cache, "the kernel cache"});
    kept.push_back({kernel_cache_lock_path(kernel_cache), "the kernel cache's lock"});
    return kept;
}

std::vector<NamedPath> files_outputs_must_keep(const TrainConfig& config) {
    std::vector<NamedPath> kept{{config.load_path, "the checkpoint " + setting("load_path") + " loads"}};
    for (const auto& file : training_data_files(config))
        kept.push_back({file, "a file of the data set"});
    for (NamedPath& own : program_files()) kept.push_back(std::move(own));
    return kept;
}

void check_run_outputs(const TrainConfig& config, std::vector<NamedPath> more_outputs) {
    std::vector<NamedPath> outputs = run_outputs(config);
    outputs.insert(outputs.end(), more_outputs.begin(), more_outputs.end());
    check_output_paths(outputs, files_outputs_must_keep(config));
}

}  // namespace dp
