#include "record/run_record.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <ctime>

#include "core/env_flag.h"
#include "config/slow_devices.h"
#include "core/error.h"
#include "core/format.h"
#include "devices/device.h"
#include "models/model_registry.h"
#include "record/run_process.h"

namespace dp {

RunSummary RunRecord::summary() const {
    RunSummary summary;
    summary.epochs = epochs;
    summary.devices = config.devices;
    summary.step_totals = step_totals;
    summary.steps = steps;
    summary.step_epochs = step_epochs;
    return summary;
}

namespace {

// " · straggler cpu:1 1.5×": a run with a straggler says so wherever it is
// named (config/slow_devices.h); empty without one, or for an entry this
// version cannot read.
std::string straggler_label(const std::vector<std::string>& slow_devices) {
    std::string label;
    try {
        for (const SlowDevice& slow : parse_slow_devices(slow_devices))
            label += (label.empty() ? " · straggler " : ", ") + slow.device + " " +
                     format("%g", slow.factor) + "×";
    } catch (const Error&) {
        return {};
    }
    return label;
}

// "DataParallel", "naive": as the seeds name them.
std::string allreduce_label(AllReduceStrategy allreduce) {
    return allreduce == AllReduceStrategy::dataparallel ? "DataParallel"
                                                        : all_reduce_strategy_name(allreduce);
}

}  // namespace

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
    // The precision and, on several devices, the all-reduce only when not
    // the default (fp32, ring), so that default labels read as before and a
    // DataParallel run tells apart from its DDP twin in legends.
    const std::string precision = config.precision == "fp32" ? "" : " · " + config.precision;
    const std::string allreduce =
        devices.size() < 2 || config.allreduce == AllReduceStrategy::ring ? "" : " · " + allreduce_label(config.allreduce);
    return title + " · " + std::to_string(devices.size()) + "× " + kind + " · b" +
           std::to_string(config.batch_size) + " · lr " + format("%g", double(config.lr)) +
           allreduce + precision + straggler_label(config.slow_devices);
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

int RunRecord::cpu_cores_used() const {
    return distinct_cpu_cores(config.devices, usable_cores);
}

RunRecord start_run_record(const TrainConfig& config, const std::string& source) {
    RunRecord record;
    record.started_at = utc_now();
    record.id = unique_id(record.started_at);
    record.source = source;
    record.pid = ::getpid();
    record.host = this_host();
    record.config = config;
    const bool on_gpu = !config.devices.empty() && config.devices[0].starts_with("cuda:");
    record.deterministic =
        !config.retune && (!on_gpu || env_flag("DP_CUDA_DETERMINISTIC"));
    return record;
}

}  // namespace dp
