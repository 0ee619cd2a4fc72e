#pragma once

#include "collective/communicator.h"
#include "parallel/collective_timeout.h"
#include "parallel/thread_rendezvous.h"

namespace dp {

// What the thread strategies share: ranks are threads of this process meeting
// at a ThreadRendezvous, and broadcast is every rank copying root's buffer.
// Strategies differ only in all_reduce_sum. A rank that waits for the others
// longer than `timeout` throws dp::Error naming the ranks (by
// timeout.rank_names: their devices) that did not arrive, and releases the
// ranks that did.
class ThreadCommunicator : public Communicator {
public:
    explicit ThreadCommunicator(int ranks, CollectiveTimeout timeout = {});

    int size() const override { return rendezvous_.ranks(); }
    void broadcast(int rank, float* data, std::size_t count, int root) override;
    void abort() override;

protected:
    const CollectiveTimeout timeout_;
    ThreadRendezvous rendezvous_;
};

// dst[i] += src[i]: the one reduction the strategies apply.
void add_into(float* dst, const float* src, std::size_t count);

}  // namespace dp
