#include "parallel/thread_communicator.h"

#include "core/error.h"

#include <algorithm>
#include <utility>

namespace dp {

ThreadCommunicator::ThreadCommunicator(const std::string& strategy, int ranks,
                                       CollectiveTimeout timeout)
    : strategy_(strategy),
      timeout_(std::move(timeout)),
      rendezvous_(ranks, timeout_.limit(),
                  [this](std::span<const int> missing, std::string_view collective) {
                      return timeout_.message(missing, collective, phase());
                  }) {
    CollectiveSchedule::all_reduce(strategy_, ranks, 0);  // throws for an unknown strategy
}

void ThreadCommunicator::all_reduce_sum(int rank, float* data, std::size_t count) {
    const auto buffers = rendezvous_.join(rank, data, {"all-reduce", count});
    run(rank, CollectiveSchedule::all_reduce(strategy_, size(), count), buffers);
}

void ThreadCommunicator::broadcast(int rank, float* data, std::size_t count, int root) {
    const auto schedule = CollectiveSchedule::broadcast(size(), count, root);
    const auto buffers = rendezvous_.join(rank, data, {"broadcast", count, root});
    run(rank, schedule, buffers);
}

void ThreadCommunicator::reduce_sum(int rank, float* data, std::size_t count, int root) {
    const auto schedule = CollectiveSchedule::reduce(size(), count, root);
    const auto buffers = rendezvous_.join(rank, data, {"reduce", count, root});
    run(rank, schedule, buffers);
}

void ThreadCommunicator::run(int rank, const CollectiveSchedule& schedule,
                             std::span<float* const> buffers) {
    float* own = buffers[std::size_t(rank)];
    for (int step = 0; step < schedule.steps(); ++step) {
        for (int i = 0; i < schedule.transfers(rank, step); ++i) {
            const ChunkTransfer t = schedule.transfer(rank, step, i);
            const float* source = buffers[std::size_t(t.source)] + t.begin;
            if (t.kind == ChunkTransfer::Kind::add)
                add_into(own + t.begin, source, t.end - t.begin);
            else
                std::copy(source, source + (t.end - t.begin), own + t.begin);
        }
        rendezvous_.sync(rank);
    }
}

void ThreadCommunicator::abort() {
    rendezvous_.abort("a rank failed and called Communicator::abort()");
}

void add_into(float* dst, const float* src, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) dst[i] += src[i];
}

}  // namespace dp
