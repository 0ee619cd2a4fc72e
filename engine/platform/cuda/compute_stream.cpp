#include "platform/cuda/compute_stream.h"

#include "core/error.h"

namespace dp::cuda {
namespace {
thread_local cudaStream_t current_stream = nullptr;
}  // namespace

cudaStream_t thread_compute_stream() {
    if (!current_stream)
        throw Error("a GPU collective was called on a thread without a CUDA backend: call it on "
                    "the device thread of the replica whose buffer it reduces");
    return current_stream;
}

ThreadComputeStreamRegistration::ThreadComputeStreamRegistration(cudaStream_t stream)
    : previous_(current_stream) {
    current_stream = stream;
}

ThreadComputeStreamRegistration::~ThreadComputeStreamRegistration() { current_stream = previous_; }

}  // namespace dp::cuda
