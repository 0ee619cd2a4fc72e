// Run under mpirun: MpiCommunicator's all-reduce, each strategy, against the
// same strategy's all-reduce among as many threads in this process (the bits
// N processes must share with N devices, issue 41: 3 ranks with ring summed
// in MPI_Allreduce's order, not the ring's), and its broadcast. Exit 0 on
// every rank if all hold.
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "parallel/collective_schedule.h"
#include "parallel/mpi_communicator.h"
#include "parallel/mpi_session.h"
#include "parallel/thread_communicator.h"

namespace {

// Rank r's element i: different on every rank, with rounding in every sum
// (so that another sum order shows in the bits).
float contribution(int rank, std::size_t i) {
    return 0.1f * float(rank + 1) + 1e-3f * float((i * 7919 + std::size_t(rank) * 104729) % 1000);
}

std::vector<float> contributions(int rank, std::size_t count) {
    std::vector<float> data(count);
    for (std::size_t i = 0; i < count; ++i) data[i] = contribution(rank, i);
    return data;
}

// What `ranks` threads of this process get from the strategy's all-reduce.
std::vector<float> thread_ranks_sum(const std::string& strategy, int ranks, std::size_t count) {
    dp::ThreadCommunicator threads(strategy, ranks);
    std::vector<std::vector<float>> buffers;
    for (int r = 0; r < ranks; ++r) buffers.push_back(contributions(r, count));
    std::vector<std::thread> workers;
    for (int r = 0; r < ranks; ++r)
        workers.emplace_back([&, r] { threads.all_reduce_sum(r, buffers[std::size_t(r)].data(), count); });
    for (auto& worker : workers) worker.join();
    return buffers[0];
}

}  // namespace

int main(int argc, char** argv) {
    dp::MpiSession mpi(argc, argv);
    const int rank = mpi.rank();
    int failures = 0;
    for (const std::string& strategy : dp::all_reduce_strategies()) {
        dp::MpiCommunicator communicator(strategy);
        // Empty, shorter than the ranks, uneven, and large (more than one MPI message).
        for (const std::size_t count : {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(1000003)}) {
            std::vector<float> data = contributions(rank, count);
            communicator.all_reduce_sum(rank, data.data(), count);
            const std::vector<float> threads = thread_ranks_sum(strategy, mpi.size(), count);
            for (std::size_t i = 0; i < count; ++i)
                if (std::memcmp(&data[i], &threads[i], sizeof(float)) != 0 && failures++ < 5)
                    std::fprintf(stderr, "rank %d, %s: element %zu of %zu is %.9g, %d threads' %.9g\n",
                                 rank, strategy.c_str(), i, count, double(data[i]), mpi.size(),
                                 double(threads[i]));
        }
        const int root = mpi.size() - 1;
        std::vector<float> broadcast(5, float(rank));
        communicator.broadcast(rank, broadcast.data(), broadcast.size(), root);
        for (float value : broadcast)
            if (value != float(root) && failures++ < 5)
                std::fprintf(stderr, "rank %d: broadcast gave %g, not rank %d's\n", rank, double(value), root);
    }
    if (failures == 0) std::printf("rank %d of %d: all-reduce and broadcast ok\n", rank, mpi.size());
    return failures == 0 ? 0 : 1;
}
