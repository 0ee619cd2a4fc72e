#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "collective/communicator.h"
#include "parallel/collective_timeout.h"

namespace dp {

// The identity of a multi-process NCCL communicator (ncclUniqueId's bytes):
// made by one process with nccl_unique_id() and sent to the others.
using NcclUniqueId = std::array<char, 128>;
NcclUniqueId nccl_unique_id();

// Collectives among CUDA devices on NCCL. Buffers are device memory. Each
// rank's collective is issued on that rank's communication stream after
// everything queued so far on the calling thread's compute stream (the CUDA
// backend's: see platform/cuda/compute_stream.h), and that compute stream
// waits for it, so the update that follows reads the sum. all_reduce_sum and
// broadcast return when the collective has completed; start_all_reduce_sum
// returns once it is queued, so backward goes on computing while NCCL
// reduces, and wait_all completes them all. Waiting polls NCCL for
// asynchronous errors; an error, a collective that takes longer than the
// timeout (the run's collective_timeout_s) or abort() aborts the NCCL
// communicator instead of hanging.
//
// Strategies: "ring" is ncclAllReduce (NCCL picks ring or tree); "naive" is
// d2l's sum-on-device-0-and-copy-back, as ncclReduce to rank 0 followed by
// ncclBroadcast from it. NCCL pipelines both in chunks along its rings, so
// rank 0 is not the bottleneck that d2l's copies make it; the comparison
// shows the cost of two collectives for one.
class NcclCommunicator final : public Communicator {
public:
    // All ranks in this process: rank r on CUDA device cuda_ordinals[r]
    // (ncclCommInitAll). Call from any thread; use rank r only on the thread
    // that drives device cuda_ordinals[r].
    NcclCommunicator(const std::vector<int>& cuda_ordinals, const std::string& strategy,
                     CollectiveTimeout timeout = {});
    // One rank of `ranks` spread over processes (ncclCommInitRank): every
    // process passes the same id. Blocks until all ranks have joined.
    NcclCommunicator(const NcclUniqueId& id, int rank, int ranks, int cuda_ordinal,
                     const std::string& strategy, CollectiveTimeout timeout = {});
    ~NcclCommunicator() override;

    std::string name() const override { return strategy_; }
    int size() const override { return ranks_; }
    void all_reduce_sum(int rank, float* data, std::size_t count) override;
    void start_all_reduce_sum(int rank, float* data, std::size_t count) override;
    void wait_all(int rank) override;
    void broadcast(int rank, float* data, std::size_t count, int root) override;
    void abort() override;

    // The strategies this communicator knows.
    static std::vector<std::string> strategies();

private:
    struct Rank;  // one local rank's NCCL communicator, stream and events
    Rank& local_rank(int rank);
    // Enqueues the collective of `count` floats that `issue` issues on the
    // rank's stream, after the work queued so far on the compute stream.
    template <typename Issue>
    void start(int rank, std::size_t count, const char* collective, Issue&& issue);
    void wait(Rank& rank, const char* collective);

    std::string strategy_;
    int ranks_;
    CollectiveTimeout timeout_;
    std::atomic<bool> aborted_{false};
    std::vector<std::unique_ptr<Rank>> local_ranks_;
};

}  // namespace dp
