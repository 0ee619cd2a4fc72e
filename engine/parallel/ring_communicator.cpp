#include "parallel/ring_communicator.h"

#include <algorithm>

namespace dp {
namespace {

struct Chunk {
    std::size_t begin, end;
};

// Chunk `index` mod `ranks` of a buffer of `count` floats; `index` may be negative.
Chunk ring_chunk(int index, int ranks, std::size_t count) {
    const auto wrapped = std::size_t(((index % ranks) + ranks) % ranks);
    const auto parts = std::size_t(ranks);
    return {count * wrapped / parts, count * (wrapped + 1) / parts};
}

}  // namespace

void RingCommunicator::all_reduce_sum(int rank, float* data, std::size_t count) {
    const auto buffers = rendezvous_.join(rank, data, {"all-reduce", count});
    const int ranks = size();
    const float* left = buffers[std::size_t((rank + ranks - 1) % ranks)];

    for (int step = 0; step < ranks - 1; ++step) {
        const Chunk chunk = ring_chunk(rank - step - 1, ranks, count);
        add_into(data + chunk.begin, left + chunk.begin, chunk.end - chunk.begin);
        rendezvous_.sync(rank);
    }
    for (int step = 0; step < ranks - 1; ++step) {
        const Chunk chunk = ring_chunk(rank - step, ranks, count);
        std::copy(left + chunk.begin, left + chunk.end, data + chunk.begin);
        rendezvous_.sync(rank);  // the last one also ends the reads of `left`
    }
}

}  // namespace dp
