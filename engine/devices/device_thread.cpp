#include "devices/device_thread.h"

#include <omp.h>
#include <pthread.h>
#include <sched.h>

#include <utility>

namespace dp {
namespace {

// Pins the calling thread to the device's cores and sizes its OpenMP team
// (oneDNN's threads) to them.
void bind_to(const DeviceInfo& device) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int core : device.cores) CPU_SET(core, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    omp_set_num_threads(int(device.cores.size()));
}

}  // namespace

DeviceThread::DeviceThread(const DeviceInfo& device)
    : thread_([this, device] { loop(device); }) {}

DeviceThread::~DeviceThread() {
    {
        std::lock_guard lock(mutex_);
        quit_ = true;
    }
    changed_.notify_all();
    thread_.join();
}

void DeviceThread::start(std::function<void()> job) {
    {
        std::lock_guard lock(mutex_);
        job_ = std::move(job);
        busy_ = true;
        error_ = nullptr;
    }
    changed_.notify_all();
}

void DeviceThread::wait() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return !busy_; });
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void DeviceThread::loop(DeviceInfo device) {
    bind_to(device);
    std::unique_lock lock(mutex_);
    while (true) {
        changed_.wait(lock, [this] { return busy_ || quit_; });
        if (quit_) return;
        auto job = std::move(job_);
        lock.unlock();
        std::exception_ptr error;
        try {
            job();
        } catch (...) {
            error = std::current_exception();
        }
        lock.lock();
        error_ = error;
        busy_ = false;
        changed_.notify_all();
    }
}

}  // namespace dp
