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
