#pragma once

#include "collective/communicator.h"

namespace dp {

// Collectives among the processes of an MPI job, one rank per process, over
// MPI_COMM_WORLD: MPI_Allreduce and MPI_Bcast on host buffers (CPU ranks).
// A rank passes its own MPI rank as `rank`. Needs a live MpiSession.
class MpiCommunicator final : public Communicator {
public:
    MpiCommunicator();

    std::string name() const override { return "mpi"; }
    int size() const override { return size_; }
    void all_reduce_sum(int rank, float* data, std::size_t count) override;
    void broadcast(int rank, float* data, std::size_t count, int root) override;
    // MPI_Abort: a failed rank ends the whole job rather than leaving the
    // others blocked in a collective.
    void abort() override;

private:
    void check_rank(int rank) const;

    int rank_ = 0, size_ = 1;
};

}  // namespace dp
