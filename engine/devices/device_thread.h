#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

#include "devices/device.h"

namespace dp {

// The one host thread that drives a device (the rule for GPUs, and the way a
// CPU device keeps its oneDNN work on its own core). It runs one job at a time,
// at the priority of the thread that made it, in every front end alike: the
// workbench once ran its device threads at SCHED_BATCH and nice 10 for its
// GUI's sake, and beside one busy process they got a tenth of a core each
// (8x dp-train's time at batch 4), so every speedup it showed was measured
// on starved threads. The GUI stays responsive by doing little per event
// (bench-ui-stall measures it), not by slowing training.
class DeviceThread {
public:
    explicit DeviceThread(const DeviceInfo& device);
    ~DeviceThread();

    DeviceThread(const DeviceThread&) = delete;
    DeviceThread& operator=(const DeviceThread&) = delete;

    // Starts `job` on the device thread; wait() blocks until it has run.
    void start(std::function<void()> job);
    // Rethrows what the job threw.
    void wait();
    // The CPU time the device's thread has used so far (its own, not its
    // OpenMP team's), readable from any thread: the thread's CPU clock.
    double cpu_seconds() const;

private:
    void loop(DeviceInfo device);

    std::mutex mutex_;
    std::condition_variable changed_;
    std::function<void()> job_;
    bool busy_ = false, quit_ = false;
    std::exception_ptr error_;
    std::thread thread_;
};

}  // namespace dp
