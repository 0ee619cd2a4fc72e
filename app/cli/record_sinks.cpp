#include "cli/record_sinks.h"

#ifdef DP_HAVE_HISTORY
#include "cli/history_recording.h"
#endif

namespace dp {

std::vector<std::unique_ptr<RunRecordSink>> record_sinks(const TrainConfig& config,
                                                         [[maybe_unused]] bool history) {
    std::vector<std::unique_ptr<RunRecordSink>> sinks;
    if (!config.record_path.empty())
        sinks.push_back(std::make_unique<JsonRecordFile>(config.record_path));
#ifdef DP_HAVE_HISTORY
    if (history) sinks.push_back(std::make_unique<HistoryRecording>());
#endif
    return sinks;
}

}  // namespace dp
