#include "record/run_record.h"

#include <unistd.h>

#include <atomic>
#include <cmath>
#include <chrono>
#include <ctime>

#include "backend/cuda_backend_options.h"
#include "core/format.h"
#include "io/atomic_file.h"
#include "io/json.h"
#include "models/model_registry.h"
#include "config/config_fields.h"
#include "record/step_timing_fields.h"

namespace dp {
namespace {

std::string quoted(const std::string& text) { return json_string(text); }

std::string string_list(const std::vector<std::string>& items) {
    std::string out = "[";
    for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + quoted(items[i]);
    return out + "]";
}

// Every setting under its field name (config/config_fields.h), typed as JSON.
std::string config_json(const TrainConfig& c) {
    std::string out;
    for (const ConfigField& field : config_fields()) {
        std::string value;
        switch (field_kind(field)) {
        case FieldKind::text: value = quoted(field_text(field, c)); break;
        case FieldKind::text_list:
            value = string_list(c.*std::get<std::vector<std::string> TrainConfig::*>(field.member));
            break;
        case FieldKind::real32:
        case FieldKind::real64: {
            const std::string text = field_text(field, c);  // shortest exact; JSON has no NaN
            value = std::isfinite(std::stod(text)) ? text : "null";
            break;
        }
        default: value = field_text(field, c);  // whole numbers, true / false
        }
        out += (out.empty() ? "{" : ", ") + quoted(field.name) + ": " + value;
    }
    return out + "}";
}

std::string epoch_json(const EpochMetrics& m) {
    // A drift that was not measured (NaN) is null.
    return "{\"epoch\": " + std::to_string(m.epoch) + ", \"train_loss\": " + json_number(m.train_loss) +
           ", \"train_acc\": " + json_number(m.train_acc) + ", \"test_acc\": " + json_number(m.test_acc) +
           ", \"seconds\": " + json_number(m.seconds) + ", \"parameter_drift\": " +
           json_number(m.parameter_drift) + "}";
}

}  // namespace

RunSummary RunRecord::summary() const {
    RunSummary summary;
    summary.epochs = epochs;
    summary.devices = config.devices;
    summary.step_totals = step_totals;
    summary.steps = steps;
    return summary;
}

std::string RunRecord::label() const { return name.empty() ? settings_label() : name; }

std::string RunRecord::settings_label() const {
    const auto& devices = config.devices;
    const std::string kind = devices.empty() ? "cpu" : devices[0].substr(0, devices[0].find(':'));
    std::string title = config.model;
    try {
        title = model_info(config.model).title;
    } catch (const Error&) {
        // A record from a newer version may name a model this one lacks.
    }
    // The precision only when not the default, so fp32 labels read as before.
    const std::string precision = config.precision == "fp32" ? "" : " · " + config.precision;
    return title + " · " + std::to_string(devices.size()) + "× " + kind + " · b" +
           std::to_string(config.batch_size) + " · lr " + format("%g", double(config.lr)) +
           precision;
}

namespace {

std::string utc_now() {
    const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm utc{};
    gmtime_r(&now, &utc);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return stamp;
}

// "<time>-<pid>-<n>": several ids of one process may be made within the same
// second (the workbench's queue, dp-train --compare): the count tells them apart.
std::string unique_id(const std::string& time) {
    static std::atomic<int> made{0};
    return time + "-" + std::to_string(::getpid()) + "-" + std::to_string(++made);
}

}  // namespace

const char* run_status_name(RunStatus status) {
    switch (status) {
    case RunStatus::running: return "running";
    case RunStatus::finished: return "finished";
    case RunStatus::stopped: return "stopped";
    case RunStatus::failed: return "failed";
    case RunStatus::interrupted: return "interrupted";
    }
    return "running";
}

std::optional<RunStatus> parse_run_status(std::string_view name) {
    for (const RunStatus status : {RunStatus::running, RunStatus::finished, RunStatus::stopped,
                                   RunStatus::failed, RunStatus::interrupted})
        if (name == run_status_name(status)) return status;
    return std::nullopt;
}

std::string new_comparison_group() { return "compare-" + unique_id(utc_now()); }

RunRecord start_run_record(const TrainConfig& config, const std::string& source) {
    RunRecord record;
    record.started_at = utc_now();
    record.id = unique_id(record.started_at);
    record.source = source;
    record.config = config;
    const bool on_gpu = !config.devices.empty() && config.devices[0].starts_with("cuda:");
    record.deterministic =
        !config.retune && (!on_gpu || detail::env_flag("DP_CUDA_DETERMINISTIC"));
    return record;
}

// Version 1: one object with the keys below; "config" holds TrainConfig's
// fields under their C++ names, "epochs" one object per completed epoch.
// "comparison_group", "deterministic" and "name" came later in version 1:
// readers take a record without them as a single, deterministic, unnamed run.
// "steps" and "step_totals" (each device's step phases summed over the run,
// record/step_timing_fields.h) came later still: a record without them has no
// step timings (steps 0), so no speedup-gap breakdown.
std::string to_json(const RunRecord& r) {
    std::string epochs = "[";
    for (std::size_t i = 0; i < r.epochs.size(); ++i)
        epochs += (i ? ",\n    " : "\n    ") + epoch_json(r.epochs[i]);
    epochs += r.epochs.empty() ? "]" : "\n  ]";
    return "{\n  \"format\": \"dp-workbench run record\",\n  \"version\": 1,\n  \"id\": " +
           quoted(r.id) + ",\n  \"started_at\": " + quoted(r.started_at) +
           ",\n  \"source\": " + quoted(r.source) + ",\n  \"status\": " + quoted(run_status_name(r.status)) +
           ",\n  \"error\": " + quoted(r.error) + ",\n  \"processes\": " +
           std::to_string(r.processes) + ",\n  \"comparison_group\": " +
           quoted(r.comparison_group) + ",\n  \"deterministic\": " +
           (r.deterministic ? "true" : "false") + ",\n  \"name\": " + quoted(r.name) +
           ",\n  \"label\": " + quoted(r.label()) +
           ",\n  \"config\": " + config_json(r.config) + ",\n  \"epochs\": " + epochs +
           ",\n  \"steps\": " + std::to_string(r.steps) +
           ",\n  \"step_totals\": " + step_totals_json(r.step_totals) + "\n}\n";
}

void write_run_record(const std::filesystem::path& file, const RunRecord& record) {
    AtomicFile out(file);
    out.write(to_json(record));
    out.commit();
}

}  // namespace dp
