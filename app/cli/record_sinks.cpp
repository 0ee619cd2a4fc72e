#include "cli/record_sinks.h"

#include <cstdio>

#include "io/json.h"
#include "config/config_fields.h"
#ifdef DP_HAVE_HISTORY
#include "cli/history_recording.h"
#endif

namespace dp {
namespace {

// A record is JSON, and JSON is UTF-8: a setting with other bytes (a path in
// Latin-1, legal on Linux) is kept with U+FFFD in their place, and said so.
void warn_about_non_utf8_settings(const TrainConfig& config) {
    for (const ConfigField& field : config_fields()) {
        const FieldKind kind = field_kind(field);
        if (kind != FieldKind::text && kind != FieldKind::text_list) continue;
        if (is_valid_utf8(field_text(field, config))) continue;
        std::fprintf(stderr, "dp-train: warning: %s holds bytes that are not UTF-8; the run's "
                             "record shows each as U+FFFD (\xEF\xBF\xBD)\n",
                     flag_or_label(field).c_str());
    }
}

}  // namespace

std::vector<std::unique_ptr<RunRecordSink>> record_sinks(const TrainConfig& config,
                                                         [[maybe_unused]] bool history) {
    std::vector<std::unique_ptr<RunRecordSink>> sinks;
    if (!config.record_path.empty())
        sinks.push_back(std::make_unique<JsonRecordFile>(config.record_path));
#ifdef DP_HAVE_HISTORY
    if (history) sinks.push_back(std::make_unique<HistoryRecording>());
#endif
    if (!sinks.empty()) warn_about_non_utf8_settings(config);
    return sinks;
}

}  // namespace dp
