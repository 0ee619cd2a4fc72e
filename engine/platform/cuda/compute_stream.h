#pragma once

#include <cuda_runtime.h>

namespace dp::cuda {

// The compute stream of the CudaBackend most recently built on the calling
// thread and still alive. A replica's backend and its collectives run on the
// same device thread, so this is how the NCCL communicator finds the stream to
// order its collectives after (the gradients) and before (the update).
// Throws dp::Error when the thread has no CUDA backend.
cudaStream_t thread_compute_stream();

// Makes `stream` the calling thread's compute stream for the registration's
// lifetime; the one before comes back when it ends.
class ThreadComputeStreamRegistration {
public:
    explicit ThreadComputeStreamRegistration(cudaStream_t stream);
    ~ThreadComputeStreamRegistration();
    ThreadComputeStreamRegistration(const ThreadComputeStreamRegistration&) = delete;
    ThreadComputeStreamRegistration& operator=(const ThreadComputeStreamRegistration&) = delete;

private:
    cudaStream_t previous_;
};

}  // namespace dp::cuda
