#pragma once

#include <string>

#include "collective/communicator.h"
#include "parallel/collective_schedule.h"
#include "parallel/collective_timeout.h"
#include "parallel/thread_rendezvous.h"

namespace dp {

// Ranks are threads of this process meeting at a ThreadRendezvous; each rank
// runs its transfers of the collective's schedule (collective_schedule.h:
// "naive" or "ring" all-reduce, broadcast) on its own thread, reading the
// other ranks' buffers directly, with a barrier between steps. A rank that
// waits for the others longer than `timeout` throws dp::Error naming the
// ranks (by timeout.rank_names: their devices) that did not arrive, and
// releases the ranks that did.
class ThreadCommunicator : public Communicator {
public:
    // Throws dp::Error for an unknown strategy or ranks < 1.
    ThreadCommunicator(const std::string& strategy, int ranks, CollectiveTimeout timeout = {});

    std::string name() const override { return strategy_; }
    int size() const override { return rendezvous_.ranks(); }
    void all_reduce_sum(int rank, float* data, std::size_t count) override;
    void broadcast(int rank, float* data, std::size_t count, int root) override;
    void reduce_sum(int rank, float* data, std::size_t count, int root) override;
    void abort() override;

private:
    // Runs `rank`'s part of `schedule` over `buffers`, a barrier after each
    // step (the last one also ends the reads of other ranks' buffers).
    void run(int rank, const CollectiveSchedule& schedule, std::span<float* const> buffers);

    const std::string strategy_;
    const CollectiveTimeout timeout_;
    ThreadRendezvous rendezvous_;
};

// dst[i] += src[i]: the one reduction the strategies apply.
void add_into(float* dst, const float* src, std::size_t count);

}  // namespace dp
