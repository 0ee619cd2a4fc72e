#include "train/step_trace.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

#include "io/json.h"

namespace dp {

namespace {

// What ends the file after every write: the event list's and the object's closing brackets.
constexpr std::string_view kClosing = "\n]}\n";

void append_int(std::string& out, long long value) {
    char digits[24];
    out.append(digits, std::to_chars(digits, digits + sizeof digits, value).ptr);
}

// Microseconds to the nanosecond, in the C locale's form ("712893.727", never
// "712893,727"), whatever the process's locale: std::to_chars ignores it.
void append_microseconds(std::string& out, double value) {
    if (!std::isfinite(value)) value = 0;
    char digits[400];  // fixed notation of the largest double
    out.append(digits,
               std::to_chars(digits, digits + sizeof digits, value, std::chars_format::fixed, 3).ptr);
}

}  // namespace

StepTrace::StepTrace(std::vector<std::string> device_ids, std::size_t steps_per_epoch,
                     const std::filesystem::path& file)
    : device_ids_(std::move(device_ids)), steps_per_epoch_(steps_per_epoch), file_(file) {
    fd_ = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) {
        fail("cannot create");
        return;
    }
    text_ = "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n";
    // Track names: the devices, then the steps.
    for (std::size_t track = 0; track <= device_ids_.size(); ++track) {
        if (track > 0) text_ += ",\n";
        text_ += "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": ";
        append_int(text_, static_cast<long long>(track));
        text_ += ", \"args\": {\"name\": ";
        append_json_string(text_, track < device_ids_.size() ? device_ids_[track] : "steps");
        text_ += "}}";
    }
    const std::size_t header_bytes = text_.size();
    text_ += kClosing;
    if (write_at(text_, 0)) closing_at_ = header_bytes;
}

StepTrace::~StepTrace() {
    if (fd_ >= 0) ::close(fd_);
}

void StepTrace::start_epoch() {
    // Per step: the steps track's slice and up to eight phases per device.
    pending_.reserve(pending_.size() + steps_per_epoch_ * (1 + 8 * device_ids_.size()));
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
        // Time 0 is the first step's start, rounded down to the clock's tick
        // (rounding the step's length down put the first event at -0.727 us).
        origin_ = end - std::chrono::ceil<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double, std::micro>(step_us));
        started_ = true;
    }
    const double end_us = std::chrono::duration<double, std::micro>(end - origin_).count();
    // Never before 0, whatever the last bit of the conversions above.
    const double start_us = std::max(0.0, end_us - step_us);
    pending_.push_back({"step", int(device_ids_.size()), start_us, step_us, report.epoch, report.batch});
    for (std::size_t d = 0; d < report.devices.size(); ++d) {
        double at = start_us;
        for (const Phase& phase : kPhases) {
            const double duration = report.devices[d].*phase.seconds * 1e6;
            if (phase.optional && duration == 0) continue;
            pending_.push_back({phase.name, int(d), at, duration, report.epoch, report.batch});
            at += duration;
        }
    }
    ++steps_;
}

void StepTrace::flush() {
    if (!failure_.empty() || pending_.empty()) {
        pending_.clear();
        return;
    }
    text_.clear();
    for (const Event& e : pending_) {
        // After the track names or the last step's events: never the first in the list.
        text_ += ",\n{\"name\": \"";
        text_ += e.name;
        text_ += "\", \"cat\": \"step\", \"ph\": \"X\", \"pid\": 1, \"tid\": ";
        append_int(text_, e.track);
        text_ += ", \"ts\": ";
        append_microseconds(text_, e.start_us);
        text_ += ", \"dur\": ";
        append_microseconds(text_, e.duration_us);
        text_ += ", \"args\": {\"epoch\": ";
        append_int(text_, e.epoch);
        text_ += ", \"batch\": ";
        append_int(text_, e.batch);
        text_ += "}}";
    }
    pending_.clear();
    const std::size_t events_bytes = text_.size();
    text_ += kClosing;
    // Over the old closing brackets, which the text puts back after its events.
    if (write_at(text_, closing_at_)) closing_at_ += events_bytes;
}

bool StepTrace::write_at(std::string_view text, std::uint64_t at) {
    for (std::string_view left = text; !left.empty();) {
        const ssize_t written = ::pwrite(fd_, left.data(), left.size(), off_t(at));
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) {
            if (written == 0) errno = ENOSPC;
            fail("cannot write");
            // The file as it was before this write: the closing brackets back
            // where they were (over bytes the file already has, so a full disk
            // takes them) and the part written after them cut off.
            const int saved = errno;
            if (closing_at_ == 0)  // not even the track names were written
                (void)::ftruncate(fd_, 0);
            else if (::pwrite(fd_, kClosing.data(), kClosing.size(), off_t(closing_at_)) == ssize_t(kClosing.size()))
                (void)::ftruncate(fd_, off_t(closing_at_ + kClosing.size()));
            errno = saved;
            return false;
        }
        bytes_written_ += std::uint64_t(written);
        left.remove_prefix(std::size_t(written));
        at += std::uint64_t(written);
    }
    return true;
}

void StepTrace::fail(const char* what) {
    failure_ = std::string(what) + " " + file_.string() + ": " + std::strerror(errno);
    pending_.clear();
}

}  // namespace dp
