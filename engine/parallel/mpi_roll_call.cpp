#include "parallel/mpi_roll_call.h"

#include <algorithm>

#include "parallel/poll_backoff.h"

namespace dp {
namespace {

// The two messages, both empty: who sent one is all it says, besides
// whether its sender called the roll or answered someone's call.
constexpr int call_tag = 1, answer_tag = 2;

}  // namespace

MpiRollCall::MpiRollCall() {
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
}

MpiRollCall::~MpiRollCall() {
    if (!called_) MPI_Comm_free(&comm_);
}

bool MpiRollCall::called() {
    int waiting = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &waiting, MPI_STATUS_IGNORE);
    return waiting != 0;
}

MpiRollCall::Result MpiRollCall::call(std::chrono::steady_clock::duration grace) {
    const bool answering = called();
    called_ = true;
    // Sent without waiting for delivery: a paused rank never receives it, and
    // an empty message leaves no buffer to keep alive.
    for (int other = 0; other < size_; ++other) {
        if (other == rank_) continue;
        MPI_Request request;
        MPI_Isend(nullptr, 0, MPI_BYTE, other, answering ? answer_tag : call_tag, comm_, &request);
        MPI_Request_free(&request);
    }
    std::vector<bool> heard(std::size_t(size_), false), called_roll(std::size_t(size_), false);
    heard[std::size_t(rank_)] = true;
    called_roll[std::size_t(rank_)] = !answering;
    int heard_count = 1;
    const auto deadline = std::chrono::steady_clock::now() + grace;
    PollBackoff backoff;
    while (heard_count < size_ && std::chrono::steady_clock::now() < deadline) {
        int waiting = 0;
        MPI_Status status;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &waiting, &status);
        if (!waiting) {
            backoff.pause();
            continue;
        }
        MPI_Recv(nullptr, 0, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, comm_, MPI_STATUS_IGNORE);
        const auto sender = std::size_t(status.MPI_SOURCE);
        if (!heard[sender]) ++heard_count;
        heard[sender] = true;
        if (status.MPI_TAG == call_tag) called_roll[sender] = true;
    }
    Result result;
    for (int rank = 0; rank < size_; ++rank)
        if (!heard[std::size_t(rank)]) result.missing.push_back(rank);
    const auto first_caller = std::find(called_roll.begin(), called_roll.end(), true);
    result.reports = first_caller - called_roll.begin() == rank_;
    return result;
}

}  // namespace dp
