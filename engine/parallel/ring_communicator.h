#pragma once

#include "parallel/thread_communicator.h"

namespace dp {

// NCCL's ring all-reduce. The buffer is cut into N chunks (chunk i is
// [count*i/N, count*(i+1)/N)); rank r's left neighbour is rank r-1 mod N.
//  - Reduce-scatter, steps s = 0..N-2: rank r adds chunk (r-s-1) mod N of its
//    left neighbour's buffer into its own. Afterwards rank r holds the full
//    sum of chunk (r+1) mod N.
//  - All-gather, steps s = 0..N-2: rank r copies chunk (r-s) mod N from its
//    left neighbour, passing the summed chunks around the ring.
// Each rank moves 2(N-1)/N of the buffer, and all ranks work at once.
// In each step rank r writes a different chunk from the one its right
// neighbour reads from it, and a barrier separates the steps, so no chunk is
// read and written in the same step.
// Sum order of chunk c: ((x_c + x_c+1) + x_c+2) + ... (ranks mod N), the same
// on every call; the all-gather copies those bits to every rank.
class RingCommunicator : public ThreadCommunicator {
public:
    using ThreadCommunicator::ThreadCommunicator;

    std::string name() const override { return "ring"; }
    void all_reduce_sum(int rank, float* data, std::size_t count) override;
};

}  // namespace dp
