#include "parallel/communication_thread.h"

#include <utility>

namespace dp {

CommunicationThread::CommunicationThread(AllReduce all_reduce)
    : all_reduce_(std::move(all_reduce)), thread_([this] { run(); }) {}

CommunicationThread::~CommunicationThread() {
    {
        std::lock_guard lock(mutex_);
        quit_ = true;
    }
    posted_.notify_one();
    thread_.join();
}

void CommunicationThread::post(float* data, std::size_t count) {
    {
        std::lock_guard lock(mutex_);
        queue_.push_back({data, count});
    }
    posted_.notify_one();
}

void CommunicationThread::wait() {
    std::unique_lock lock(mutex_);
    finished_.wait(lock, [this] { return done_ == queue_.size(); });
    queue_.clear();  // keeps its capacity: the next step posts without allocating
    done_ = 0;
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void CommunicationThread::settle() {
    std::unique_lock lock(mutex_);
    finished_.wait(lock, [this] { return done_ == queue_.size(); });
}

void CommunicationThread::run() {
    std::unique_lock lock(mutex_);
    while (true) {
        posted_.wait(lock, [this] { return done_ < queue_.size() || quit_; });
        if (done_ == queue_.size()) return;  // quit, and nothing left to reduce
        const Bucket bucket = queue_[done_];
        if (!error_) {  // after an error the rank's step has failed: skip the rest
            lock.unlock();
            std::exception_ptr error;
            try {
                all_reduce_(bucket.data, bucket.count);
            } catch (...) {
                error = std::current_exception();
            }
            lock.lock();
            error_ = error;
        }
        if (++done_ == queue_.size()) finished_.notify_all();
    }
}

}  // namespace dp
