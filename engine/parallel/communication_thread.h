#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace dp {

// One rank's worker for its started all-reduces (what a CUDA stream is to a
// GPU's collectives): post() queues a bucket and returns at once, the thread
// reduces the buckets one after another in the order they were posted, and
// wait() returns once all of them are done.
//
// Idle, the thread sleeps on a condition variable: on a machine whose every
// core runs a device, a worker that spun while waiting for work (or for the
// other ranks, which the all-reduce it runs waits for the same way) would
// take its core from the device's computation.
//
// The thread is started by the constructor, on the calling thread, and so
// inherits that thread's CPU affinity and scheduling priority (Linux copies
// both to a new thread): made on a CPU device's thread, it runs on the
// device's core at the device's priority.
//
// After an all-reduce throws, the buckets posted after it are skipped (the
// rank's step has failed) and the next wait() rethrows the error.
// post() and wait() allocate nothing once the queue has held as many buckets
// as a step posts (a step's are cleared by its wait()).
class CommunicationThread {
public:
    // Runs all_reduce(data, count) for each posted bucket, on the worker thread.
    using AllReduce = std::function<void(float* data, std::size_t count)>;

    explicit CommunicationThread(AllReduce all_reduce);
    // Finishes what was posted (wait() for it first to see its errors), then
    // stops the thread.
    ~CommunicationThread();

    CommunicationThread(const CommunicationThread&) = delete;
    CommunicationThread& operator=(const CommunicationThread&) = delete;

    // Queues all_reduce(data, count) after everything posted before. The
    // buffer must not be touched until wait() has returned.
    void post(float* data, std::size_t count);

    // Blocks until every posted bucket has been reduced (or skipped after an
    // error); rethrows the first error since the last wait().
    void wait();

    // Blocks until every posted bucket has been reduced or skipped, as wait()
    // does, but leaves the queue and any error to wait(): for a thread other
    // than the one that posts (an abort that must outlast the reductions).
    void settle();

private:
    struct Bucket {
        float* data;
        std::size_t count;
    };

    void run();

    const AllReduce all_reduce_;
    std::mutex mutex_;
    std::condition_variable posted_;    // a bucket was posted, or quit_
    std::condition_variable finished_;  // every posted bucket is done
    std::vector<Bucket> queue_;         // posted since the last wait()
    std::size_t done_ = 0;              // queue_[0, done_) are reduced or skipped
    std::exception_ptr error_;
    bool quit_ = false;
    std::thread thread_;  // last: it starts once the members above exist
};

}  // namespace dp
