#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "train/train_observer.h"

namespace dp {

// Each device's step phases as Chrome trace events (the JSON that Perfetto
// and chrome://tracing open): one track per device, a slice per phase (data,
// forward, backward, a straggler's wait, all-reduce, update), and a "steps" track with one slice
// per step. The engine reports phase durations, not their start times, so
// each device's phases are laid end to end from the step's start, in the
// order they run; the step ends when the slowest device's last phase does.
// Written by dp-train --trace and the workbench.
class StepTrace {
public:
    // Epochs of `steps_per_epoch` steps each.
    StepTrace(std::vector<std::string> device_ids, std::size_t steps_per_epoch);

    // Takes room for one more epoch's steps, so that adding a step allocates
    // nothing (the engine's step loop does not allocate). Epoch by epoch, not
    // for the whole run up front: --epochs 100000000 would ask for terabytes.
    void start_epoch();

    // A step that ended at `end` (its report's durations are in seconds).
    void add_step(const StepReport& report, std::chrono::steady_clock::time_point end);

    std::string to_json() const;
    // Atomically (io/atomic_file.h): after each epoch, so a killed run keeps
    // the steps of its finished epochs.
    void write(const std::filesystem::path& file) const;

    std::size_t steps() const { return steps_; }

private:
    struct Event {
        const char* name;
        int track;  // a device's index, or the steps track
        double start_us, duration_us;
        int epoch, batch;
    };

    std::vector<std::string> device_ids_;
    std::size_t steps_per_epoch_;
    std::vector<Event> events_;
    std::chrono::steady_clock::time_point origin_;
    bool started_ = false;
    std::size_t steps_ = 0;
};

}  // namespace dp
