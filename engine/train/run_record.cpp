#include "train/run_record.h"

#include <unistd.h>

#include <atomic>
#include <cmath>
#include <charconv>
#include <chrono>
#include <ctime>

#include "backend/cuda_backend_options.h"
#include "core/format.h"
#include "io/atomic_file.h"
#include "models/model_registry.h"

namespace dp {
namespace {

// The shortest text that reads back as the same value: records round-trip
// exactly, and a float learning rate of 0.2 reads "0.2".
template <typename Number>
std::string number(Number value) {
    char text[32];
    const auto end = std::to_chars(text, text + sizeof text, value).ptr;
    return std::string(text, end);
}

// A JSON string literal: quotes, backslashes and control characters escaped.
std::string quoted(const std::string& text) {
    std::string out = "\"";
    for (const char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            out += format("\\u%04x", unsigned(c));
        } else {
            out += c;
        }
    }
    return out + "\"";
}

std::string string_list(const std::vector<std::string>& items) {
    std::string out = "[";
    for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + quoted(items[i]);
    return out + "]";
}

std::string config_json(const TrainConfig& c) {
    return "{\"model\": " + quoted(c.model) + ", \"dataset\": " + quoted(c.dataset) +
           ", \"data_dir\": " + quoted(c.data_dir) + ", \"input_size\": " +
           std::to_string(c.input_size) + ", \"samples\": " + std::to_string(c.samples) +
           ", \"limit_train\": " + std::to_string(c.limit_train) +
           ", \"limit_test\": " + std::to_string(c.limit_test) +
           ", \"batch_size\": " + std::to_string(c.batch_size) + ", \"lr\": " + number(c.lr) +
           ", \"epochs\": " + std::to_string(c.epochs) + ", \"seed\": " + std::to_string(c.seed) +
           ", \"shuffle\": " + (c.shuffle ? "true" : "false") +
           ", \"devices\": " + string_list(c.devices) + ", \"allreduce\": " + quoted(c.allreduce) +
           ", \"bucket_mb\": " + number(c.bucket_mb) +
           ", \"sync_bn\": " + (c.sync_bn ? "true" : "false") + "}";
}

std::string epoch_json(const EpochMetrics& m) {
    return "{\"epoch\": " + std::to_string(m.epoch) + ", \"train_loss\": " + number(m.train_loss) +
           ", \"train_acc\": " + number(m.train_acc) + ", \"test_acc\": " + number(m.test_acc) +
           ", \"seconds\": " + number(m.seconds) + ", \"parameter_drift\": " +
           (std::isnan(m.parameter_drift) ? "null" : number(m.parameter_drift)) + "}";
}

}  // namespace

std::string RunRecord::label() const {
    const auto& devices = config.devices;
    const std::string kind = devices.empty() ? "cpu" : devices[0].substr(0, devices[0].find(':'));
    std::string title = config.model;
    try {
        title = model_info(config.model).title;
    } catch (const Error&) {
        // A record from a newer version may name a model this one lacks.
    }
    return title + " · " + std::to_string(devices.size()) + "× " + kind + " · b" +
           std::to_string(config.batch_size) + " · lr " + format("%g", double(config.lr));
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
// "comparison_group" and "deterministic" came later in version 1: readers
// take a record without them as a single, deterministic run.
std::string to_json(const RunRecord& r) {
    std::string epochs = "[";
    for (std::size_t i = 0; i < r.epochs.size(); ++i)
        epochs += (i ? ",\n    " : "\n    ") + epoch_json(r.epochs[i]);
    epochs += r.epochs.empty() ? "]" : "\n  ]";
    return "{\n  \"format\": \"dp-workbench run record\",\n  \"version\": 1,\n  \"id\": " +
           quoted(r.id) + ",\n  \"started_at\": " + quoted(r.started_at) +
           ",\n  \"source\": " + quoted(r.source) + ",\n  \"status\": " + quoted(r.status) +
           ",\n  \"error\": " + quoted(r.error) + ",\n  \"processes\": " +
           std::to_string(r.processes) + ",\n  \"comparison_group\": " +
           quoted(r.comparison_group) + ",\n  \"deterministic\": " +
           (r.deterministic ? "true" : "false") + ",\n  \"label\": " + quoted(r.label()) +
           ",\n  \"config\": " + config_json(r.config) + ",\n  \"epochs\": " + epochs + "\n}\n";
}

void write_run_record(const std::filesystem::path& file, const RunRecord& record) {
    AtomicFile out(file);
    out.write(to_json(record));
    out.commit();
}

}  // namespace dp
