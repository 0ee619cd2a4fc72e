#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "collective/communicator.h"
#include "parallel/collective_timeout.h"
#include "parallel/thread_rendezvous.h"

// cudaStream_t and cudaEvent_t, without the CUDA headers.
struct CUstream_st;
struct CUevent_st;

namespace dp {

// Collectives among replicas that share one GPU ("cuda:0x2"), where NCCL,
// which takes one rank per GPU, cannot run: the collective's schedule
// (collective_schedule.h: naive or ring all-reduce, broadcast) as device-to-
// device copies and a sum kernel (platform/cuda/device_add.h), each rank's
// transfers on that rank's communication stream, steps separated by events
// (every stream of a step waits for every rank's previous step), so no
// float is read while another stream writes it.
//
// Ordered as NcclCommunicator orders its collectives: a rank's collective
// starts after the work queued so far on its compute stream (the calling
// thread's, platform/cuda/compute_stream.h), and wait_all makes the compute
// stream wait for every rank's part of every collective the rank started,
// since the other ranks read its buffer. start_all_reduce_sum never blocks:
// the last rank to start a collective queues every rank's part of it (one
// thread queues all of a collective's work, so each event is recorded
// before a stream waits on it); wait_all blocks until the collectives this
// rank started are queued and have run, at most the timeout, naming the
// replicas that never started them.
class ReplicaCopyCommunicator final : public Communicator {
public:
    // `ranks` replicas on CUDA device `cuda_ordinal`; throws dp::Error for an
    // unknown strategy or ranks < 1. Call from any thread; use rank r only on
    // the thread that drives replica r.
    ReplicaCopyCommunicator(int cuda_ordinal, int ranks, const std::string& strategy,
                            CollectiveTimeout timeout = {});
    ~ReplicaCopyCommunicator() override;

    std::string name() const override { return strategy_; }
    int size() const override { return ranks_; }
    void all_reduce_sum(int rank, float* data, std::size_t count) override;
    void start_all_reduce_sum(int rank, float* data, std::size_t count) override;
    void wait_all(int rank) override;
    void broadcast(int rank, float* data, std::size_t count, int root) override;
    void abort() override;

private:
    struct Collective;  // one collective in flight: its calls, buffers and events

    void start(int rank, const CollectiveCall& call, float* data);
    // Queues every rank's transfers of `c` on their streams. Mutex held.
    void queue(Collective& c);
    // Waits, mutex held by `lock`, until `rank`'s started collectives are
    // queued; returns them.
    std::vector<Collective*> queued_collectives(std::unique_lock<std::mutex>& lock, int rank);
    // Polls until every rank's last event of `last` has run.
    void wait_until_run(const Collective& last);
    CUevent_st* take_event();  // from the pool, or new. Mutex held.
    void abort_locked(const std::string& reason);
    void throw_if_aborted() const;

    const int device_, ranks_;
    const std::string strategy_;
    const CollectiveTimeout timeout_;
    std::vector<CUstream_st*> streams_;  // a communication stream per rank

    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<std::unique_ptr<Collective>> in_flight_;  // by sequence, from first_sequence_
    std::uint64_t first_sequence_ = 0;
    std::vector<std::uint64_t> started_, waited_;  // per rank: sequences started, waited for
    std::vector<CUevent_st*> free_events_, all_events_;
    std::atomic<bool> aborted_{false};
    std::string abort_reason_;
};

}  // namespace dp
