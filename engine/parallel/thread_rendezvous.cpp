#include "parallel/thread_rendezvous.h"

#include "collective/communicator.h"

#include "core/error.h"

#include <algorithm>

namespace dp {

std::string describe(const CollectiveCall& call) {
    std::string text = std::string(call.collective) + "(count " + std::to_string(call.count);
    if (call.root >= 0) text += ", root " + std::to_string(call.root);
    return text + ")";
}

std::string out_of_step_message(int first_rank, const CollectiveCall& first, int rank,
                                const CollectiveCall& call) {
    return "collectives out of step: rank " + std::to_string(first_rank) + " called " +
           describe(first) + " but rank " + std::to_string(rank) + " called " + describe(call);
}

ThreadRendezvous::ThreadRendezvous(int ranks, std::chrono::steady_clock::duration timeout,
                                   ExplainMissing explain_missing)
    : ranks_(ranks), timeout_(timeout), explain_missing_(std::move(explain_missing)) {
    if (ranks < 1)
        throw Error("a communicator needs at least 1 rank, got " + std::to_string(ranks));
    has_arrived_.resize(std::size_t(ranks));
    buffers_.resize(std::size_t(ranks));
    calls_.resize(std::size_t(ranks));
}

std::span<float* const> ThreadRendezvous::join(int rank, float* data, const CollectiveCall& call) {
    if (rank < 0 || rank >= ranks_)
        throw Error(std::string(call.collective) + ": rank " + std::to_string(rank) +
                    " is out of range for a communicator of " + std::to_string(ranks_) + " ranks");
    std::unique_lock lock(mutex_);
    throw_if_aborted();
    buffers_[std::size_t(rank)] = data;
    calls_[std::size_t(rank)] = call;
    arrive_and_wait(lock, rank);
    // Every rank runs the same check on the same table, so all throw or none
    // does; aborting also stops a rank that catches this from going on alone.
    for (int other = 0; other < ranks_; ++other) {
        if (calls_[std::size_t(other)] == calls_[0]) continue;
        const std::string reason =
            out_of_step_message(0, calls_[0], other, calls_[std::size_t(other)]);
        abort_locked(reason);
        throw Error(reason);
    }
    return buffers_;
}

void ThreadRendezvous::sync(int rank) {
    std::unique_lock lock(mutex_);
    throw_if_aborted();
    arrive_and_wait(lock, rank);
}

void ThreadRendezvous::abort(const std::string& reason) {
    std::lock_guard lock(mutex_);
    abort_locked(reason);
}

void ThreadRendezvous::abort_locked(const std::string& reason) {
    if (aborted_) return;
    aborted_ = true;
    abort_reason_ = reason;
    all_arrived_.notify_all();
}

void ThreadRendezvous::arrive_and_wait(std::unique_lock<std::mutex>& lock, int rank) {
    const std::uint64_t generation = generation_;
    if (++arrived_ == ranks_) {
        arrived_ = 0;
        std::fill(has_arrived_.begin(), has_arrived_.end(), false);
        ++generation_;
        all_arrived_.notify_all();
        return;
    }
    has_arrived_[std::size_t(rank)] = true;
    const auto deadline = std::chrono::steady_clock::now() + timeout_;
    if (!all_arrived_.wait_until(lock, deadline,
                                 [&] { return generation_ != generation || aborted_; }))
        time_out(rank);
    // A barrier that completed before the abort still counts as passed.
    if (generation_ == generation) throw_if_aborted();
}

void ThreadRendezvous::time_out(int rank) {
    std::vector<int> missing;
    for (int other = 0; other < ranks_; ++other)
        if (!has_arrived_[std::size_t(other)]) missing.push_back(other);
    const std::string message = explain_missing_(missing, calls_[std::size_t(rank)].collective);
    abort_locked(message);
    throw Error(message);
}

void ThreadRendezvous::throw_if_aborted() const {
    if (aborted_) throw CollectiveAborted("collective aborted: " + abort_reason_);
}

}  // namespace dp
