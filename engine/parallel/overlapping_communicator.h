#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "collective/communicator.h"
#include "parallel/communication_thread.h"

namespace dp {

// Overlaps another communicator's all-reduces with the caller's work, as a
// GPU's communication stream does for NCCL: start_all_reduce_sum hands the
// bucket to the rank's CommunicationThread and returns at once, so backward
// goes on computing while the ranks' communication threads reduce, and
// wait_all(rank) waits for them. Made for CPU devices, whose ranks are threads
// reducing host buffers themselves (the thread strategies): without it a
// bucket's all-reduce runs on the device thread between layers, and every
// bucket is a point where each device waits for the slowest.
//
// The sums are the wrapped communicator's, bucket by bucket in the order
// started, so the bits are the same as calling its all_reduce_sum there.
// all_reduce_sum, broadcast and reduce_sum first wait for the rank's started all-reduces
// (every rank then calls the wrapped collectives in the same order), then run
// on the calling thread. Timeouts and abort are the wrapped communicator's:
// a started all-reduce that times out or is aborted throws from wait_all.
//
// A rank's communication thread starts on its first start_all_reduce_sum,
// from the calling thread, whose core and priority it inherits: a CPU
// device's runs on the device's core. It sleeps while it has nothing to do
// and while its all-reduce waits for the other ranks, so it takes that core
// from the device only while it adds and copies. Drive each rank from one
// thread at a time, as every communicator requires.
class OverlappingCommunicator final : public Communicator {
public:
    explicit OverlappingCommunicator(std::unique_ptr<Communicator> synchronous);
    // Each rank should have waited for what it started: what it did not is
    // reduced first, so its buffers must still exist.
    ~OverlappingCommunicator() override;

    std::string name() const override { return synchronous_->name(); }
    int size() const override { return synchronous_->size(); }
    void all_reduce_sum(int rank, float* data, std::size_t count) override;
    void start_all_reduce_sum(int rank, float* data, std::size_t count) override;
    void wait_all(int rank) override;
    void broadcast(int rank, float* data, std::size_t count, int root) override;
    void reduce_sum(int rank, float* data, std::size_t count, int root) override;
    // Aborts the wrapped communicator, then returns once every started
    // all-reduce has ended (they throw at their next barrier): a rank that
    // failed in the middle of backward and aborts may free its gradients
    // after this returns, though it never waited for its buckets.
    void abort() override;
    void set_phase(CollectivePhase phase) override;

private:
    // The rank's thread, started now if this is its first all-reduce.
    CommunicationThread& communication_thread(int rank);

    const std::unique_ptr<Communicator> synchronous_;
    // Held while a rank starts its thread and while abort() visits them all;
    // a rank reads its own entry without it (only it writes there).
    std::mutex threads_mutex_;
    std::vector<std::unique_ptr<CommunicationThread>> threads_;  // per rank
};

}  // namespace dp
