#include "parallel/nccl_communicator.h"

#include <chrono>
#include <cstring>
#include <thread>
#include <utility>

#include <cuda_runtime.h>
#include <nccl.h>

#include "platform/cuda/compute_stream.h"
#include "platform/cuda/cuda_check.h"

namespace dp {

static_assert(sizeof(ncclUniqueId) == std::tuple_size_v<NcclUniqueId>);

namespace {

std::string checked_strategy(const std::string& strategy) {
    std::string known;
    for (const std::string& name : NcclCommunicator::strategies()) {
        if (name == strategy) return strategy;
        known += (known.empty() ? "" : ", ") + name;
    }
    throw Error("unknown all-reduce strategy '" + strategy + "' (known: " + known + ")");
}

}  // namespace

struct NcclCommunicator::Rank {
    int rank, device;
    ncclComm_t comm;
    cudaStream_t stream = nullptr;
    cudaEvent_t compute_ready = nullptr, done = nullptr;
    const char* pending = nullptr;  // the last collective started, until waited for

    // Takes ownership of `comm` at once, so that it is released however
    // construction ends.
    Rank(int rank, int device, ncclComm_t comm) : rank(rank), device(device), comm(comm) {}
    ~Rank() { release(true); }
    Rank(const Rank&) = delete;
    Rank& operator=(const Rank&) = delete;

    void create_stream_and_events() {
        cuda::set_device(device);
        DP_CUDA_CHECK(device, cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        DP_CUDA_CHECK(device, cudaEventCreateWithFlags(&compute_ready, cudaEventDisableTiming));
        DP_CUDA_CHECK(device, cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    }

    // Stops NCCL's work on this rank now; the communicator is unusable after.
    void abort_communicator() {
        if (comm) ncclCommAbort(comm);
        comm = nullptr;
    }

    // Frees everything; `abort` discards pending work (after a failure, when
    // peers may never join it) instead of finishing it.
    void release(bool abort) {
        if (!comm && !stream) return;
        cudaSetDevice(device);
        if (comm) {
            if (abort)
                ncclCommAbort(comm);
            else
                ncclCommDestroy(comm);
            comm = nullptr;
        }
        if (stream) {
            cudaStreamSynchronize(stream);
            cudaStreamDestroy(stream);
            stream = nullptr;
        }
        if (compute_ready) cudaEventDestroy(compute_ready);
        if (done) cudaEventDestroy(done);
        compute_ready = done = nullptr;
    }
};

NcclUniqueId nccl_unique_id() {
    ncclUniqueId id;
    DP_CUDA_CHECK(-1, ncclGetUniqueId(&id));
    NcclUniqueId bytes;
    std::memcpy(bytes.data(), id.internal, bytes.size());
    return bytes;
}

std::vector<std::string> NcclCommunicator::strategies() { return {"naive", "ring"}; }

NcclCommunicator::NcclCommunicator(const std::vector<int>& cuda_ordinals,
                                   const std::string& strategy, CollectiveTimeout timeout)
    : strategy_(checked_strategy(strategy)),
      ranks_(int(cuda_ordinals.size())),
      timeout_(std::move(timeout)) {
    if (cuda_ordinals.empty()) throw Error("an NCCL communicator needs at least one GPU");
    cuda::CurrentDeviceRestorer restorer;
    std::vector<ncclComm_t> comms(cuda_ordinals.size());
    DP_CUDA_CHECK(cuda_ordinals[0], ncclCommInitAll(comms.data(), ranks_, cuda_ordinals.data()));
    for (int rank = 0; rank < ranks_; ++rank)
        local_ranks_.push_back(std::make_unique<Rank>(rank, cuda_ordinals[rank], comms[rank]));
    for (auto& rank : local_ranks_) rank->create_stream_and_events();
}

NcclCommunicator::NcclCommunicator(const NcclUniqueId& id, int rank, int ranks, int cuda_ordinal,
                                   const std::string& strategy, CollectiveTimeout timeout)
    : strategy_(checked_strategy(strategy)), ranks_(ranks), timeout_(std::move(timeout)) {
    if (rank < 0 || rank >= ranks)
        throw Error("NCCL rank " + std::to_string(rank) + " is not below the rank count " +
                    std::to_string(ranks));
    cuda::CurrentDeviceRestorer restorer;
    cuda::set_device(cuda_ordinal);
    ncclUniqueId nccl_id;
    std::memcpy(nccl_id.internal, id.data(), id.size());
    ncclComm_t comm = nullptr;
    DP_CUDA_CHECK(cuda_ordinal, ncclCommInitRank(&comm, ranks, nccl_id, rank));
    local_ranks_.push_back(std::make_unique<Rank>(rank, cuda_ordinal, comm));
    local_ranks_.back()->create_stream_and_events();
}

NcclCommunicator::~NcclCommunicator() {
    cuda::CurrentDeviceRestorer restorer;
    // Finalizing is collective among the ranks: one thread finalizes all of
    // its communicators in one group, or it would wait on itself.
    if (!aborted_) {
        ncclGroupStart();
        for (auto& rank : local_ranks_) {
            cudaSetDevice(rank->device);
            ncclCommFinalize(rank->comm);
        }
        ncclGroupEnd();
    }
    for (auto& rank : local_ranks_) rank->release(aborted_);
}

NcclCommunicator::Rank& NcclCommunicator::local_rank(int rank) {
    for (auto& local : local_ranks_)
        if (local->rank == rank) return *local;
    throw Error("NCCL rank " + std::to_string(rank) + " does not live in this process");
}

void NcclCommunicator::all_reduce_sum(int rank, float* data, std::size_t count) {
    start_all_reduce_sum(rank, data, count);
    wait_all(rank);
}

void NcclCommunicator::start_all_reduce_sum(int rank, float* data, std::size_t count) {
    if (strategy_ == "ring") {
        start(rank, count, "ncclAllReduce", [&](Rank& r) {
            DP_CUDA_CHECK(r.device, ncclAllReduce(data, data, count, ncclFloat, ncclSum, r.comm,
                                                  r.stream));
        });
    } else {
        start(rank, count, "ncclReduce + ncclBroadcast", [&](Rank& r) {
            DP_CUDA_CHECK(r.device, ncclReduce(data, data, count, ncclFloat, ncclSum, 0, r.comm,
                                               r.stream));
            DP_CUDA_CHECK(r.device,
                          ncclBroadcast(data, data, count, ncclFloat, 0, r.comm, r.stream));
        });
    }
}

void NcclCommunicator::broadcast(int rank, float* data, std::size_t count, int root) {
    start(rank, count, "ncclBroadcast", [&](Rank& r) {
        DP_CUDA_CHECK(r.device, ncclBroadcast(data, data, count, ncclFloat, root, r.comm, r.stream));
    });
    wait_all(rank);
}

void NcclCommunicator::abort() { aborted_ = true; }

template <typename Issue>
void NcclCommunicator::start(int rank, std::size_t count, const char* collective, Issue&& issue) {
    Rank& r = local_rank(rank);
    if (aborted_)
        throw CollectiveAborted(std::string("collective aborted: ") + collective + " on cuda:" +
                                std::to_string(r.device) + " after another device failed");
    if (ranks_ == 1 || count == 0) return;  // nothing to exchange
    try {
        DP_CUDA_CHECK(r.device, cudaEventRecord(r.compute_ready, cuda::thread_compute_stream()));
        DP_CUDA_CHECK(r.device, cudaStreamWaitEvent(r.stream, r.compute_ready, 0));
        issue(r);
        // The stream runs its collectives in order: its last event marks them all.
        DP_CUDA_CHECK(r.device, cudaEventRecord(r.done, r.stream));
        r.pending = collective;
    } catch (...) {
        aborted_ = true;  // the other ranks stop waiting for this one
        throw;
    }
}

void NcclCommunicator::wait_all(int rank) {
    Rank& r = local_rank(rank);
    if (!r.pending) return;
    const char* collective = std::exchange(r.pending, nullptr);
    try {
        DP_CUDA_CHECK(r.device, cudaStreamWaitEvent(cuda::thread_compute_stream(), r.done, 0));
        wait(r, collective);
    } catch (const CollectiveAborted&) {
        throw;
    } catch (...) {
        aborted_ = true;
        throw;
    }
}

void NcclCommunicator::wait(Rank& r, const char* collective) {
    const auto deadline = std::chrono::steady_clock::now() + timeout_.limit();
    const std::string where = std::string(collective) + " on cuda:" + std::to_string(r.device);
    while (true) {
        const cudaError_t state = cudaEventQuery(r.done);
        if (state == cudaSuccess) return;
        if (state != cudaErrorNotReady) {
            r.abort_communicator();
            cuda::check(state, "cudaEventQuery", __FILE__, __LINE__, r.device);
        }
        ncclResult_t async_error = ncclSuccess;
        DP_CUDA_CHECK(r.device, ncclCommGetAsyncError(r.comm, &async_error));
        if (async_error != ncclSuccess && async_error != ncclInProgress) {
            r.abort_communicator();
            throw Error(where + " failed: " + ncclGetErrorString(async_error) + " (" +
                        ncclGetLastError(nullptr) + ")");
        }
        if (aborted_) {
            r.abort_communicator();
            throw CollectiveAborted("collective aborted: " + where + " after another device failed");
        }
        if (std::chrono::steady_clock::now() > deadline) {
            // NCCL cannot say which rank is missing: the message names the collective.
            r.abort_communicator();
            throw Error("cuda:" + std::to_string(r.device) + ": " +
                        timeout_.message({}, collective, phase()));
        }
        std::this_thread::yield();
    }
}

}  // namespace dp
