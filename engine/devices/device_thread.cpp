#include "devices/device_thread.h"

#include <omp.h>
#include <pthread.h>
#include <ctime>
#include <sched.h>
#include <utility>

#include "module/cuda_module.h"

namespace dp {
namespace {

// A GPU's thread makes it the current device before anything else (CUDA
// state is per thread). A CPU device's thread is pinned to its cores, and
// its OpenMP team (oneDNN's threads) sized to them.
void bind_to(const DeviceInfo& device) {
    if (device.kind == DeviceKind::cuda) {
        require_cuda_module().use_device(device.cuda_ordinal);
        return;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int core : device.cores) CPU_SET(core, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    omp_set_num_threads(int(device.cores.size()));
}

}  // namespace

DeviceThread::DeviceThread(const DeviceInfo& device)
    : thread_([this, device] { loop(device); }) {}

double DeviceThread::cpu_seconds() const {
    clockid_t clock;
    timespec time{};
    if (pthread_getcpuclockid(const_cast<std::thread&>(thread_).native_handle(), &clock) != 0 ||
        clock_gettime(clock, &time) != 0)
        return 0;
    return double(time.tv_sec) + double(time.tv_nsec) * 1e-9;
}

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
    // A device that cannot be bound fails every job with the reason.
    std::exception_ptr bind_error;
    try {
        bind_to(device);
    } catch (...) {
        bind_error = std::current_exception();
    }
    std::unique_lock lock(mutex_);
    while (true) {
        changed_.wait(lock, [this] { return busy_ || quit_; });
        if (quit_) return;
        auto job = std::move(job_);
        lock.unlock();
        std::exception_ptr error;
        try {
            if (bind_error) std::rethrow_exception(bind_error);
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
