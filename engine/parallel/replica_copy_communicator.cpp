#include "parallel/replica_copy_communicator.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <utility>

#include <cuda_runtime.h>

#include "parallel/collective_schedule.h"
#include "platform/cuda/compute_stream.h"
#include "platform/cuda/cuda_check.h"
#include "platform/cuda/device_add.h"

namespace dp {

struct ReplicaCopyCommunicator::Collective {
    CollectiveCall call;
    CollectiveSchedule schedule;
    std::vector<float*> buffers;
    std::vector<cudaEvent_t> ready;  // per rank, on its compute stream at the start
    std::vector<cudaEvent_t> done;   // per rank, after its last step
    std::vector<bool> arrived;
    int arrivals = 0, waits = 0;
    bool queued = false;
};

ReplicaCopyCommunicator::ReplicaCopyCommunicator(int cuda_ordinal, int ranks,
                                                 const std::string& strategy,
                                                 CollectiveTimeout timeout)
    : device_(cuda_ordinal),
      ranks_(ranks),
      strategy_(strategy),
      timeout_(std::move(timeout)),
      started_(std::size_t(std::max(ranks, 0))),
      waited_(std::size_t(std::max(ranks, 0))) {
    if (ranks < 1) throw Error("a communicator needs at least 1 rank, got " + std::to_string(ranks));
    CollectiveSchedule::all_reduce(strategy_, ranks, 0);  // throws for an unknown strategy
    cuda::CurrentDeviceRestorer restorer;
    cuda::set_device(device_);
    for (int rank = 0; rank < ranks_; ++rank) {
        cudaStream_t stream = nullptr;
        DP_CUDA_CHECK(device_, cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        streams_.push_back(stream);
    }
}

ReplicaCopyCommunicator::~ReplicaCopyCommunicator() {
    cuda::CurrentDeviceRestorer restorer;
    cudaSetDevice(device_);
    for (cudaStream_t stream : streams_) {
        cudaStreamSynchronize(stream);
        cudaStreamDestroy(stream);
    }
    for (cudaEvent_t event : all_events_) cudaEventDestroy(event);
}

void ReplicaCopyCommunicator::all_reduce_sum(int rank, float* data, std::size_t count) {
    start_all_reduce_sum(rank, data, count);
    wait_all(rank);
}

void ReplicaCopyCommunicator::start_all_reduce_sum(int rank, float* data, std::size_t count) {
    start(rank, {"all-reduce", count}, data);
}

void ReplicaCopyCommunicator::broadcast(int rank, float* data, std::size_t count, int root) {
    CollectiveSchedule::broadcast(ranks_, count, root);  // throws for a root out of range
    start(rank, {"broadcast", count, root}, data);
    wait_all(rank);
}

void ReplicaCopyCommunicator::start(int rank, const CollectiveCall& call, float* data) {
    if (rank < 0 || rank >= ranks_)
        throw Error(std::string(call.collective) + ": rank " + std::to_string(rank) +
                    " is out of range for a communicator of " + std::to_string(ranks_) + " ranks");
    if (ranks_ == 1 || call.count == 0) {  // nothing to exchange
        throw_if_aborted();
        return;
    }
    std::unique_lock lock(mutex_);
    throw_if_aborted();
    const std::uint64_t sequence = started_[std::size_t(rank)]++;
    while (first_sequence_ + in_flight_.size() <= sequence) {
        auto c = std::make_unique<Collective>(Collective{
            call,
            call.root >= 0 ? CollectiveSchedule::broadcast(ranks_, call.count, call.root)
                           : CollectiveSchedule::all_reduce(strategy_, ranks_, call.count),
            std::vector<float*>(std::size_t(ranks_)), {}, {},
            std::vector<bool>(std::size_t(ranks_)), 0, 0, false});
        in_flight_.push_back(std::move(c));
    }
    Collective& c = *in_flight_[std::size_t(sequence - first_sequence_)];
    if (c.ready.empty())
        for (int r = 0; r < ranks_; ++r) {
            c.ready.push_back(take_event());
            c.done.push_back(take_event());
        }
    if (!(call == c.call)) {
        const auto first = std::find(c.arrived.begin(), c.arrived.end(), true) - c.arrived.begin();
        const std::string reason = out_of_step_message(int(first), c.call, rank, call);
        abort_locked(reason);
        throw Error(reason);
    }
    try {
        DP_CUDA_CHECK(device_, cudaEventRecord(c.ready[std::size_t(rank)], cuda::thread_compute_stream()));
        c.buffers[std::size_t(rank)] = data;
        c.arrived[std::size_t(rank)] = true;
        if (++c.arrivals == ranks_) queue(c);
    } catch (const Error& error) {
        abort_locked(error.what());
        throw;
    }
    changed_.notify_all();
}

void ReplicaCopyCommunicator::queue(Collective& c) {
    const CollectiveSchedule& schedule = c.schedule;
    for (int step = 0; step < schedule.steps(); ++step) {
        // The barrier between steps: what a step reads or overwrites was last
        // touched in the step before, on any rank's stream. Every stream's
        // waits are queued before any stream records this step's event,
        // since a wait sees the record made before it.
        const std::vector<cudaEvent_t>& previous = step == 0 ? c.ready : c.done;
        for (cudaStream_t stream : streams_)
            for (cudaEvent_t event : previous)
                DP_CUDA_CHECK(device_, cudaStreamWaitEvent(stream, event, 0));
        for (int rank = 0; rank < ranks_; ++rank) {
            cudaStream_t stream = streams_[std::size_t(rank)];
            float* own = c.buffers[std::size_t(rank)];
            for (int i = 0; i < schedule.transfers(rank, step); ++i) {
                const ChunkTransfer t = schedule.transfer(rank, step, i);
                const float* source = c.buffers[std::size_t(t.source)] + t.begin;
                const std::size_t n = t.end - t.begin;
                if (t.kind == ChunkTransfer::Kind::add)
                    cuda::add_into(stream, device_, n, source, own + t.begin);
                else if (n)
                    DP_CUDA_CHECK(device_, cudaMemcpyAsync(own + t.begin, source, n * sizeof(float),
                                                           cudaMemcpyDeviceToDevice, stream));
            }
            DP_CUDA_CHECK(device_, cudaEventRecord(c.done[std::size_t(rank)], stream));
        }
    }
    c.queued = true;
}

void ReplicaCopyCommunicator::wait_all(int rank) {
    std::vector<Collective*> mine;
    {
        std::unique_lock lock(mutex_);
        mine = queued_collectives(lock, rank);
        if (mine.empty()) return;
        // The compute stream may touch this rank's buffers again only once
        // every rank's part has run: the others read them.
        try {
            for (Collective* c : mine)
                for (cudaEvent_t event : c->done)
                    DP_CUDA_CHECK(device_, cudaStreamWaitEvent(cuda::thread_compute_stream(), event, 0));
        } catch (const Error& error) {
            abort_locked(error.what());
            throw;
        }
    }
    // A rank's stream runs its collectives in order: the last one's events mark them all.
    wait_until_run(*mine.back());
    std::lock_guard lock(mutex_);
    waited_[std::size_t(rank)] = started_[std::size_t(rank)];
    for (Collective* c : mine) ++c->waits;
    while (!in_flight_.empty() && in_flight_.front()->waits == ranks_) {
        Collective& done = *in_flight_.front();
        free_events_.insert(free_events_.end(), done.ready.begin(), done.ready.end());
        free_events_.insert(free_events_.end(), done.done.begin(), done.done.end());
        in_flight_.pop_front();
        ++first_sequence_;
    }
}

std::vector<ReplicaCopyCommunicator::Collective*> ReplicaCopyCommunicator::queued_collectives(
    std::unique_lock<std::mutex>& lock, int rank) {
    const std::uint64_t begin = waited_[std::size_t(rank)], end = started_[std::size_t(rank)];
    const auto deadline = std::chrono::steady_clock::now() + timeout_.limit();
    std::vector<Collective*> collectives;
    for (std::uint64_t sequence = begin; sequence < end; ++sequence) {
        Collective& c = *in_flight_[std::size_t(sequence - first_sequence_)];
        while (!c.queued) {
            throw_if_aborted();
            if (changed_.wait_until(lock, deadline) == std::cv_status::timeout && !c.queued) {
                std::vector<int> missing;
                for (int r = 0; r < ranks_; ++r)
                    if (!c.arrived[std::size_t(r)]) missing.push_back(r);
                const std::string message = timeout_.message(missing, c.call.collective, phase());
                abort_locked(message);
                throw Error(message);
            }
        }
        collectives.push_back(&c);
    }
    return collectives;
}

void ReplicaCopyCommunicator::wait_until_run(const Collective& last) {
    const auto deadline = std::chrono::steady_clock::now() + timeout_.limit();
    for (cudaEvent_t event : last.done) {
        while (true) {
            const cudaError_t state = cudaEventQuery(event);
            if (state == cudaSuccess) break;
            if (state != cudaErrorNotReady) {
                abort();
                cuda::check(state, "cudaEventQuery", __FILE__, __LINE__, device_);
            }
            if (aborted_) throw CollectiveAborted("collective aborted: " + abort_reason_);
            if (std::chrono::steady_clock::now() > deadline) {
                const std::string message =
                    "cuda:" + std::to_string(device_) + ": " +
                    timeout_.message({}, last.call.collective, phase());
                abort();
                throw Error(message);
            }
            std::this_thread::yield();
        }
    }
}

cudaEvent_t ReplicaCopyCommunicator::take_event() {
    if (!free_events_.empty()) {
        cudaEvent_t event = free_events_.back();
        free_events_.pop_back();
        return event;
    }
    cudaEvent_t event = nullptr;
    DP_CUDA_CHECK(device_, cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    all_events_.push_back(event);
    return event;
}

void ReplicaCopyCommunicator::abort() {
    std::lock_guard lock(mutex_);
    abort_locked("a replica failed and called Communicator::abort()");
}

void ReplicaCopyCommunicator::abort_locked(const std::string& reason) {
    if (!aborted_) abort_reason_ = reason;
    aborted_ = true;
    changed_.notify_all();
}

void ReplicaCopyCommunicator::throw_if_aborted() const {
    if (aborted_) throw CollectiveAborted("collective aborted: " + abort_reason_);
}

}  // namespace dp
