#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "collective/communicator.h"
#include "parallel/collective_timeout.h"

namespace dp {

class MpiRollCall;

// Collectives among the processes of an MPI job, one rank per process, over
// MPI_COMM_WORLD, on host buffers (CPU ranks). The all-reduce runs the
// strategy's CollectiveSchedule ("naive" or "ring", collective_schedule.h)
// as messages between the ranks, each chunk sent as the thread ranks read
// it and added in the same order, so N processes sum as N devices in one
// process do, bit for bit (MPI_Allreduce sums 3 ranks in an order of its
// own). The broadcast is MPI_Ibcast. Every request is polled until it
// completes, so that none waits without limit. A rank
// kept waiting longer than `timeout` calls the roll (parallel/mpi_roll_call.h)
// among the ranks waiting with it, and the lowest of them throws dp::Error
// naming the ranks that did not come ("rank 2 (node2, cpu:0) did not reach
// the all-reduce of step 37 within 600 s: ..."); its caller prints it and
// ends the job with MPI_Abort. The others throw the same, should the job not
// have ended after a few seconds. A rank passes its own MPI rank as `rank`.
// Needs a live MpiSession; constructing one is collective.
class MpiCommunicator final : public Communicator {
public:
    // Throws dp::Error for an unknown strategy.
    explicit MpiCommunicator(std::string strategy, CollectiveTimeout timeout = {});
    ~MpiCommunicator() override;

    std::string name() const override { return strategy_; }
    int size() const override { return size_; }
    void all_reduce_sum(int rank, float* data, std::size_t count) override;
    void broadcast(int rank, float* data, std::size_t count, int root) override;
    // MPI_Abort: a failed rank ends the whole job rather than leaving the
    // others blocked in a collective.
    void abort() override;

private:
    void check_rank(int rank) const;
    // Issues `count` floats at `data` in slices MPI can count, each by
    // start(slice data, slice count, request), and completes each in time.
    template <typename Start>
    void run_sliced(std::string_view collective, float* data, std::size_t count, Start&& start);
    // For a collective that did not complete in time: the roll call, then
    // the message naming the missing ranks, thrown.
    [[noreturn]] void time_out(std::string_view collective);

    const std::string strategy_;
    CollectiveTimeout timeout_;
    std::unique_ptr<MpiRollCall> roll_call_;
    std::vector<float> received_;  // a transfer's floats from another rank, reused
    int rank_ = 0, size_ = 1;
};

}  // namespace dp
