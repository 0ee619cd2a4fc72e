#include "parallel/thread_communicator.h"

#include "core/error.h"

#include <algorithm>
#include <utility>

namespace dp {

ThreadCommunicator::ThreadCommunicator(int ranks, CollectiveTimeout timeout)
    : timeout_(std::move(timeout)),
      rendezvous_(ranks, timeout_.limit(),
                  [this](std::span<const int> missing, std::string_view collective) {
                      return timeout_.message(missing, collective, phase());
                  }) {}

void ThreadCommunicator::broadcast(int rank, float* data, std::size_t count, int root) {
    if (root < 0 || root >= size())
        throw Error("broadcast: root " + std::to_string(root) +
                    " is out of range for a communicator of " + std::to_string(size()) + " ranks");
    const auto buffers = rendezvous_.join(rank, data, {"broadcast", count, root});
    if (rank != root) std::copy_n(buffers[std::size_t(root)], count, data);
    rendezvous_.sync(rank);  // root's buffer is read until every rank gets here
}

void ThreadCommunicator::abort() {
    rendezvous_.abort("a rank failed and called Communicator::abort()");
}

void add_into(float* dst, const float* src, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) dst[i] += src[i];
}

}  // namespace dp
