#include "parallel/mpi_communicator.h"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <string>

namespace dp {
namespace {

// MPI counts are ints: larger buffers go in slices of at most this many floats.
constexpr std::size_t max_slice = INT_MAX;

}  // namespace

MpiCommunicator::MpiCommunicator() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

void MpiCommunicator::check_rank(int rank) const {
    if (rank != rank_)
        throw Error("MPI rank " + std::to_string(rank_) + " called a collective as rank " +
                    std::to_string(rank));
}

void MpiCommunicator::all_reduce_sum(int rank, float* data, std::size_t count) {
    check_rank(rank);
    for (std::size_t done = 0; done < count; done += max_slice) {
        const int slice = int(std::min(max_slice, count - done));
        MPI_Allreduce(MPI_IN_PLACE, data + done, slice, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    }
}

void MpiCommunicator::broadcast(int rank, float* data, std::size_t count, int root) {
    check_rank(rank);
    for (std::size_t done = 0; done < count; done += max_slice) {
        const int slice = int(std::min(max_slice, count - done));
        MPI_Bcast(data + done, slice, MPI_FLOAT, root, MPI_COMM_WORLD);
    }
}

void MpiCommunicator::abort() { MPI_Abort(MPI_COMM_WORLD, 1); }

}  // namespace dp
