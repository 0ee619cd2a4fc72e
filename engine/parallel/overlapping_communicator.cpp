#include "parallel/overlapping_communicator.h"

#include <utility>

namespace dp {

OverlappingCommunicator::OverlappingCommunicator(std::unique_ptr<Communicator> synchronous)
    : synchronous_(std::move(synchronous)), threads_(std::size_t(synchronous_->size())) {}

// threads_ goes first (declared last): each thread finishes while the
// communicator it calls still exists.
OverlappingCommunicator::~OverlappingCommunicator() = default;

CommunicationThread& OverlappingCommunicator::communication_thread(int rank) {
    std::unique_ptr<CommunicationThread>& thread = threads_[std::size_t(rank)];
    if (!thread) {
        std::lock_guard lock(threads_mutex_);
        thread = std::make_unique<CommunicationThread>(
            [synchronous = synchronous_.get(), rank](float* data, std::size_t count) {
                synchronous->all_reduce_sum(rank, data, count);
            });
    }
    return *thread;
}

void OverlappingCommunicator::start_all_reduce_sum(int rank, float* data, std::size_t count) {
    // A rank out of range: the wrapped communicator's check words the error.
    if (rank < 0 || rank >= size()) return synchronous_->all_reduce_sum(rank, data, count);
    communication_thread(rank).post(data, count);
}

void OverlappingCommunicator::wait_all(int rank) {
    if (rank < 0 || rank >= size()) return;
    if (const auto& thread = threads_[std::size_t(rank)]) thread->wait();
}

void OverlappingCommunicator::all_reduce_sum(int rank, float* data, std::size_t count) {
    wait_all(rank);
    synchronous_->all_reduce_sum(rank, data, count);
}

void OverlappingCommunicator::broadcast(int rank, float* data, std::size_t count, int root) {
    wait_all(rank);
    synchronous_->broadcast(rank, data, count, root);
}

void OverlappingCommunicator::reduce_sum(int rank, float* data, std::size_t count, int root) {
    wait_all(rank);
    synchronous_->reduce_sum(rank, data, count, root);
}

void OverlappingCommunicator::abort() {
    synchronous_->abort();
    std::lock_guard lock(threads_mutex_);
    for (const auto& thread : threads_)
        if (thread) thread->settle();
}

void OverlappingCommunicator::set_phase(CollectivePhase phase) {
    Communicator::set_phase(phase);
    synchronous_->set_phase(phase);
}

}  // namespace dp
