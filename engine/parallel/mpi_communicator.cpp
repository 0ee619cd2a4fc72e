#include "parallel/mpi_communicator.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <string>
#include <thread>
#include <utility>

#include "core/error.h"
#include "parallel/collective_schedule.h"
#include "parallel/mpi_roll_call.h"
#include "parallel/poll_backoff.h"
#include "parallel/thread_communicator.h"

namespace dp {
namespace {

using Clock = std::chrono::steady_clock;

// MPI counts are ints: larger buffers go in slices of at most this many floats.
constexpr std::size_t max_slice = INT_MAX;

// How long the ranks of a roll call listen for each other: long enough for
// a rank that polls a wait every 200 us to answer on a busy machine, short
// beside the timeout itself.
Clock::duration roll_call_grace(const CollectiveTimeout& timeout) {
    return std::clamp<Clock::duration>(timeout.limit() / 10, std::chrono::seconds(1),
                                       std::chrono::seconds(5));
}

// Polls `request` until it completes (true), or until `deadline` has passed
// or another rank has called the roll (false). Those two are checked only
// once the wait is a long one, so a short wait costs MPI_Test calls alone.
bool completed_in_time(MPI_Request& request, Clock::time_point deadline, MpiRollCall& roll_call) {
    PollBackoff backoff;
    while (true) {
        int done = 0;
        MPI_Test(&request, &done, MPI_STATUS_IGNORE);
        if (done) return true;
        if (backoff.long_wait() && (Clock::now() >= deadline || roll_call.called())) return false;
        backoff.pause();
    }
}

}  // namespace

MpiCommunicator::MpiCommunicator(std::string strategy, CollectiveTimeout timeout)
    : strategy_(std::move(strategy)),
      timeout_(std::move(timeout)),
      roll_call_(std::make_unique<MpiRollCall>()) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    CollectiveSchedule::all_reduce(strategy_, size_, 0);  // throws for an unknown strategy
}

MpiCommunicator::~MpiCommunicator() = default;

void MpiCommunicator::check_rank(int rank) const {
    if (rank != rank_)
        throw Error("MPI rank " + std::to_string(rank_) + " called a collective as rank " +
                    std::to_string(rank));
}

template <typename Start>
void MpiCommunicator::run_sliced(std::string_view collective, float* data, std::size_t count,
                                 Start&& start) {
    const Clock::time_point deadline = Clock::now() + timeout_.limit();
    for (std::size_t done = 0; done < count; done += max_slice) {
        MPI_Request request;
        start(data + done, int(std::min(max_slice, count - done)), request);
        if (!completed_in_time(request, deadline, *roll_call_)) time_out(collective);
    }
}

void MpiCommunicator::all_reduce_sum(int rank, float* data, std::size_t count) {
    check_rank(rank);
    const CollectiveSchedule schedule = CollectiveSchedule::all_reduce(strategy_, size_, count);
    const Clock::time_point deadline = Clock::now() + timeout_.limit();
    std::vector<MPI_Request> sends;
    for (int step = 0; step < schedule.steps(); ++step) {
        // What the other ranks read from this one in the step, sent as it is
        // at the step's start: what a thread rank reads from its neighbour's
        // buffer. A transfer's tag is its index among its receiver's.
        sends.clear();
        for (int other = 0; other < size_; ++other) {
            if (other == rank_) continue;
            for (int i = 0; i < schedule.transfers(other, step); ++i) {
                const ChunkTransfer t = schedule.transfer(other, step, i);
                if (t.source != rank_) continue;
                for (std::size_t done = t.begin; done < t.end; done += max_slice) {
                    sends.emplace_back();
                    MPI_Isend(data + done, int(std::min(max_slice, t.end - done)), MPI_FLOAT, other, i,
                              MPI_COMM_WORLD, &sends.back());
                }
            }
        }
        // This rank's own transfers, in the schedule's order (naive's rank 0
        // adds rank 1, then rank 2, ...: the threads' sum order, bit for
        // bit). No rank reads floats another writes in the same step
        // (collective_schedule.h), so applying them while the sends above
        // are still going changes nothing sent.
        for (int i = 0; i < schedule.transfers(rank_, step); ++i) {
            const ChunkTransfer t = schedule.transfer(rank_, step, i);
            const std::size_t length = t.end - t.begin;
            if (received_.size() < length) received_.resize(length);
            for (std::size_t done = 0; done < length; done += max_slice) {
                MPI_Request request;
                MPI_Irecv(received_.data() + done, int(std::min(max_slice, length - done)), MPI_FLOAT,
                          t.source, i, MPI_COMM_WORLD, &request);
                if (!completed_in_time(request, deadline, *roll_call_)) time_out("all-reduce");
            }
            if (t.kind == ChunkTransfer::Kind::add)
                add_into(data + t.begin, received_.data(), length);
            else
                std::copy(received_.begin(), received_.begin() + std::ptrdiff_t(length), data + t.begin);
        }
        for (MPI_Request& request : sends)
            if (!completed_in_time(request, deadline, *roll_call_)) time_out("all-reduce");
    }
}

void MpiCommunicator::broadcast(int rank, float* data, std::size_t count, int root) {
    check_rank(rank);
    run_sliced("broadcast", data, count, [root](float* slice, int slice_count, MPI_Request& request) {
        MPI_Ibcast(slice, slice_count, MPI_FLOAT, root, MPI_COMM_WORLD, &request);
    });
}

void MpiCommunicator::time_out(std::string_view collective) {
    const MpiRollCall::Result roll = roll_call_->call(roll_call_grace(timeout_));
    const std::string message = timeout_.message(roll.missing, collective, phase());
    // One line for the job: the reporting rank's caller prints it and ends
    // the job at once. The others give it time to, and speak only if the job
    // is still running then (the reporter may have stopped answering too).
    // That time is far beyond any teardown (mpirun's SIGTERM, then SIGKILL a
    // second later) and the reporter's record write, which waits up to 5 s
    // for a locked history: a slow machine must not make two lines.
    // The collective stays pending either way (MPI cannot cancel one) and
    // could still write into its buffer whenever MPI runs: no MPI call
    // follows this one (the roll call keeps its communicator) until the
    // caller's MPI_Abort, however soon the buffer is freed.
    if (!roll.reports)
        std::this_thread::sleep_for(std::chrono::seconds(60));
    throw Error(message);
}

void MpiCommunicator::abort() { MPI_Abort(MPI_COMM_WORLD, 1); }

}  // namespace dp
