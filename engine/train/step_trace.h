#pragma once

#include <chrono>
#include <cstdint>
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
// Written by dp-train --trace, and by the workbench when asked to (Run ▸
// Write step traces).
//
// The file is written as it goes: the constructor writes the track names,
// each flush() appends the steps added since the last one, writing over the
// closing "]}" and putting it back after them. Between flushes the file is
// complete JSON, and a flush writes only its new events, never the whole
// file again (a 600-epoch run once spent 80% of its time rewriting it).
// Numbers are written in the C locale's form whatever the process's locale.
// A write that fails (a full disk) does not throw: failure() says why, the
// file keeps the steps flushed before, and later calls write nothing.
class StepTrace {
public:
    // Epochs of `steps_per_epoch` steps each, traced to `file` (created, or
    // emptied).
    StepTrace(std::vector<std::string> device_ids, std::size_t steps_per_epoch,
              const std::filesystem::path& file);
    ~StepTrace();
    StepTrace(const StepTrace&) = delete;
    StepTrace& operator=(const StepTrace&) = delete;

    // Takes room for one epoch's steps, so that adding a step allocates
    // nothing (the engine's step loop does not allocate). Only the steps not
    // yet flushed are held: --epochs 100000000 needs no more than one epoch.
    void start_epoch();

    // A step that ended at `end` (its report's durations are in seconds).
    void add_step(const StepReport& report, std::chrono::steady_clock::time_point end);

    // Appends the steps added since the last flush to the file (after each
    // epoch, so a killed run keeps the steps of its finished epochs).
    void flush();

    // Empty while the file is written; else why it is not ("cannot write
    // trace.json: No space left on device").
    const std::string& failure() const { return failure_; }

    std::size_t steps() const { return steps_; }
    // What the writes so far put in the file (each flush's new events and the closing bracket).
    std::uint64_t bytes_written() const { return bytes_written_; }

private:
    struct Event {
        const char* name;
        int track;  // a device's index, or the steps track
        double start_us, duration_us;
        int epoch, batch;
    };

    // Writes `text` at `at`: true when all of it was written.
    bool write_at(std::string_view text, std::uint64_t at);
    void fail(const char* what);

    std::vector<std::string> device_ids_;
    std::size_t steps_per_epoch_;
    std::filesystem::path file_;
    int fd_ = -1;
    std::vector<Event> pending_;  // added since the last flush
    std::string text_;             // a flush's text, reused
    std::uint64_t closing_at_ = 0;  // where the file's closing "]}" starts
    std::chrono::steady_clock::time_point origin_;
    bool started_ = false;
    std::size_t steps_ = 0;
    std::uint64_t bytes_written_ = 0;
    std::string failure_;
};

}  // namespace dp
