#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace dp {

// What one rank asks of a collective. Every rank of a collective must ask the
// same; only the buffers differ.
struct CollectiveCall {
    std::string_view collective;  // "all-reduce", "broadcast", "reduce"
    std::size_t count = 0;
    int root = -1;  // broadcast and reduce only
    bool operator==(const CollectiveCall&) const = default;
};

// "collectives out of step: rank 0 called all-reduce(count 10) but rank 2
// called broadcast(count 10, root 0)": what every communicator that checks
// its ranks' calls says when they differ.
std::string out_of_step_message(int first_rank, const CollectiveCall& first, int rank,
                                const CollectiveCall& call);

// The meeting point of thread ranks: an abortable barrier (mutex, condition
// variable and a generation counter, so the barrier is reusable at once and
// abort() can wake its waiters, which std::barrier cannot) and a table of each
// rank's buffer for the collective in progress, so ranks read each other's
// buffers directly.
//
// A collective is join(), then steps separated by sync(), ending with a sync()
// after the last read of another rank's buffer: until then no rank may return
// and reuse its buffer or its slot in the table.
//
// No rank waits longer than `timeout` at one barrier: the first whose wait
// runs out aborts the rendezvous with the message `explain_missing` words for
// the ranks that had not arrived, and throws it as dp::Error; the others
// wake and throw CollectiveAborted with it.
class ThreadRendezvous {
public:
    // The one-line message for the ranks in `missing` (ascending) that did
    // not reach `collective` in time.
    using ExplainMissing =
        std::function<std::string(std::span<const int> missing, std::string_view collective)>;

    // dp::Error if ranks < 1.
    ThreadRendezvous(int ranks, std::chrono::steady_clock::duration timeout,
                     ExplainMissing explain_missing);

    int ranks() const { return ranks_; }

    // Publishes `rank`'s buffer, waits for every rank, and returns every rank's
    // buffer indexed by rank, valid until the collective's final sync(). Throws
    // dp::Error, on every rank, if the ranks' calls differ (which aborts).
    std::span<float* const> join(int rank, float* data, const CollectiveCall& call);

    // Waits until every rank has called sync() as often as this one.
    void sync(int rank);

    // Wakes every waiting rank; they and all later calls throw
    // dp::Error("collective aborted: " + reason). The first reason sticks.
    void abort(const std::string& reason);

private:
    // Both expect mutex_ held by `lock`.
    void arrive_and_wait(std::unique_lock<std::mutex>& lock, int rank);
    void throw_if_aborted() const;
    // For `rank`, whose wait ran out: aborts, naming the ranks not arrived.
    [[noreturn]] void time_out(int rank);
    // The first reason sticks; wakes every waiting rank.
    void abort_locked(const std::string& reason);

    const int ranks_;
    const std::chrono::steady_clock::duration timeout_;
    const ExplainMissing explain_missing_;
    std::mutex mutex_;
    std::condition_variable all_arrived_;
    int arrived_ = 0;
    std::vector<bool> has_arrived_;  // per rank, at the barrier in progress
    std::uint64_t generation_ = 0;   // barriers completed so far
    bool aborted_ = false;
    std::string abort_reason_;
    std::vector<float*> buffers_;        // per rank, for the collective in progress
    std::vector<CollectiveCall> calls_;  // per rank, to check that they match
};

}  // namespace dp
