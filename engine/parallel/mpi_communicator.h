#pragma once

#include <memory>
#include <string_view>

#include "collective/communicator.h"
#include "config/all_reduce_strategy.h"
#include "parallel/collective_timeout.h"

namespace dp {

class MpiRollCall;

// Collectives among the processes of an MPI job, one rank per process, over
// MPI_COMM_WORLD: MPI_Iallreduce and MPI_Ibcast on host buffers (CPU ranks),
// polled until they complete, so that none waits without limit. A rank
// kept waiting longer than `timeout` calls the roll (parallel/mpi_roll_call.h)
// among the ranks waiting with it, and the lowest of them throws dp::Error
// naming the ranks that did not come ("rank 2 (node2, cpu:0) did not reach
// the all-reduce of step 37 within 600 s: ..."); its caller prints it and
// ends the job with MPI_Abort. The others throw the same, should the job not
// have ended after a few seconds. A rank passes its own MPI rank as `rank`.
// Needs a live MpiSession; constructing one is collective.
class MpiCommunicator final : public Communicator {
public:
    explicit MpiCommunicator(CollectiveTimeout timeout = {});
    ~MpiCommunicator() override;

    std::string name() const override { return all_reduce_strategy_name(AllReduceStrategy::mpi); }
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

    CollectiveTimeout timeout_;
    std::unique_ptr<MpiRollCall> roll_call_;
    int rank_ = 0, size_ = 1;
};

}  // namespace dp
