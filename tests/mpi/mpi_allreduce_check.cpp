// Run under mpirun: MpiCommunicator's all-reduce against a direct sum of what
// every rank contributed, and its broadcast. Exit 0 on every rank if both hold.
#include <cstdio>
#include <vector>

#include "parallel/mpi_communicator.h"
#include "parallel/mpi_session.h"

namespace {

// Rank r's element i: exact in float, different on every rank.
float contribution(int rank, std::size_t i) { return 0.5f * float(rank + 1) * float(i % 1000); }

}  // namespace

int main(int argc, char** argv) {
    dp::MpiSession mpi(argc, argv);
    dp::MpiCommunicator communicator;
    const int rank = mpi.rank();
    int failures = 0;
    // Empty, shorter than the ranks, uneven, and large (more than one MPI message).
    for (const std::size_t count : {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(1000003)}) {
        std::vector<float> data(count);
        for (std::size_t i = 0; i < count; ++i) data[i] = contribution(rank, i);
        communicator.all_reduce_sum(rank, data.data(), count);
        for (std::size_t i = 0; i < count; ++i) {
            float direct = 0;
            for (int r = 0; r < mpi.size(); ++r) direct += contribution(r, i);
            if (data[i] != direct && failures++ < 5)
                std::fprintf(stderr, "rank %d: element %zu of %zu is %g, the direct sum %g\n", rank,
                             i, count, double(data[i]), double(direct));
        }
    }
    const int root = mpi.size() - 1;
    std::vector<float> broadcast(5, float(rank));
    communicator.broadcast(rank, broadcast.data(), broadcast.size(), root);
    for (float value : broadcast)
        if (value != float(root) && failures++ < 5)
            std::fprintf(stderr, "rank %d: broadcast gave %g, not rank %d's\n", rank, double(value), root);
    if (failures == 0) std::printf("rank %d of %d: all-reduce and broadcast ok\n", rank, mpi.size());
    return failures == 0 ? 0 : 1;
}
