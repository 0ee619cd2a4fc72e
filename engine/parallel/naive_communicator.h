#pragma once

#include "parallel/thread_communicator.h"

namespace dp {

// d2l's from-scratch all-reduce (12.5): rank 0 sums every other rank's buffer
// into its own, then every rank copies rank 0's. Rank 0 moves all the data
// while the others wait: the baseline the ring is measured against.
// Sum order: ((x0 + x1) + x2) + ..., the same on every call.
class NaiveCommunicator : public ThreadCommunicator {
public:
    using ThreadCommunicator::ThreadCommunicator;

    std::string name() const override { return "naive"; }
    void all_reduce_sum(int rank, float* data, std::size_t count) override;
};

}  // namespace dp
