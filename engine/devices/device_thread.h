#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

#include "devices/device.h"

namespace dp {

// The one host thread that drives a device (the rule for GPUs, and the way a
// CPU device keeps its oneDNN work on its own core). It runs one job at a time.
class DeviceThread {
public:
    explicit DeviceThread(const DeviceInfo& device);
    ~DeviceThread();

    DeviceThread(const DeviceThread&) = delete;
    DeviceThread& operator=(const DeviceThread&) = delete;

    // Device threads started after this call run at background priority
    // (SCHED_BATCH, nice 10) when `background` is true. A desktop front end
    // asks for it, so that its GUI thread wins a core the training threads
    // hold: on a machine whose every core trains, the GUI thread otherwise
    // waits its turn (a 98 ms stall measured on 2 cores). A throughput-only
    // program (dp-train) keeps normal priority.
    static void set_background_priority(bool background);

    // Starts `job` on the device thread; wait() blocks until it has run.
    void start(std::function<void()> job);
    // Rethrows what the job threw.
    void wait();

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
