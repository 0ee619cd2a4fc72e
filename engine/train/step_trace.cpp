#include "train/step_trace.h"

#include <algorithm>

#include "core/format.h"
#include "io/atomic_file.h"
#include "io/json.h"

namespace dp {

StepTrace::StepTrace(std::vector<std::string> device_ids, std::size_t steps_per_epoch)
    : device_ids_(std::move(device_ids)), steps_per_epoch_(steps_per_epoch) {}

void StepTrace::start_epoch() {
    // Per step: the steps track's slice and up to eight phases per device.
    const std::size_t needed = events_.size() + steps_per_epoch_ * (1 + 8 * device_ids_.size());
    // Doubling, so that reserving epoch by epoch copies each event a bounded number of times.
    if (needed > events_.capacity()) events_.reserve(std::max(needed, 2 * events_.capacity()));
}

void StepTrace::add_step(const StepReport& report, std::chrono::steady_clock::time_point end) {
    struct Phase {
        const char* name;
        double DeviceStepTiming::*seconds;
        // No slice when 0: DataParallel's phases (ring and naive runs lack
        // them) and a straggler's wait (the other devices have none).
        bool optional = false;
    };
    static constexpr Phase kPhases[] = {{"data", &DeviceStepTiming::data},
                                        {"forward", &DeviceStepTiming::forward},
                                        {"output gather", &DeviceStepTiming::gather, true},
                                        {"backward", &DeviceStepTiming::backward},
                                        {"slow-device wait", &DeviceStepTiming::straggler_wait, true},
                                        {"all-reduce", &DeviceStepTiming::allreduce},
                                        {"update", &DeviceStepTiming::update},
                                        {"parameter broadcast", &DeviceStepTiming::broadcast, true}};
    double step_us = 0;
    for (const DeviceStepTiming& device : report.devices) {
        double device_us = 0;
        for (const Phase& phase : kPhases) device_us += device.*phase.seconds * 1e6;
        step_us = std::max(step_us, device_us);
    }
    if (!started_) {
        // Time 0 is the first step's start.
        origin_ = end - std::chrono::microseconds(static_cast<long long>(step_us));
        started_ = true;
    }
    const double end_us = std::chrono::duration<double, std::micro>(end - origin_).count();
    const double start_us = end_us - step_us;
    events_.push_back({"step", int(device_ids_.size()), start_us, step_us, report.epoch, report.batch});
    for (std::size_t d = 0; d < report.devices.size(); ++d) {
        double at = start_us;
        for (const Phase& phase : kPhases) {
            const double duration = report.devices[d].*phase.seconds * 1e6;
            if (phase.optional && duration == 0) continue;
            events_.push_back({phase.name, int(d), at, duration, report.epoch, report.batch});
            at += duration;
        }
    }
    ++steps_;
}

std::string StepTrace::to_json() const {
    std::string json = "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n";
    // Track names: the devices, then the steps.
    for (std::size_t track = 0; track <= device_ids_.size(); ++track)
        json += format("{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": %zu, "
                       "\"args\": {\"name\": %s}},\n",
                       track,
                       json_string(track < device_ids_.size() ? device_ids_[track] : "steps").c_str());
    for (std::size_t i = 0; i < events_.size(); ++i) {
        const Event& e = events_[i];
        json += format("{\"name\": \"%s\", \"cat\": \"step\", \"ph\": \"X\", \"pid\": 1, \"tid\": %d, "
                       "\"ts\": %.3f, \"dur\": %.3f, \"args\": {\"epoch\": %d, \"batch\": %d}}%s\n",
                       e.name, e.track, e.start_us, e.duration_us, e.epoch, e.batch,
                       i + 1 < events_.size() ? "," : "");
    }
    // The metadata events end with a comma: close with the last of them when there are no steps.
    if (events_.empty()) json.erase(json.size() - 2, 1);
    return json + "]}\n";
}

void StepTrace::write(const std::filesystem::path& file) const {
    AtomicFile out(file);
    out.write(to_json());
    out.commit();
}

}  // namespace dp
