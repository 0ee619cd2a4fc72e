#pragma once

// The CUDA backend, for code that does not include CUDA headers (devices,
// tests): a factory and the device list.

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/cuda_backend_options.h"

namespace dp {

// The backend on CUDA device `ordinal`: cuDNN convolutions, cuBLAS linear
// layers, its own kernels for the rest, one compute stream, device memory
// from an arena that grows only while replicas are built. Makes `ordinal`
// the calling thread's device; use the backend on that thread only.
std::unique_ptr<Backend> make_cuda_backend(int ordinal, const CudaBackendOptions& options);

struct CudaDeviceProperties {
    int ordinal = 0;
    std::string name;
    std::size_t memory_bytes = 0;
    int multiprocessors = 0;
};

// The GPUs the CUDA runtime sees; empty, without a message, when there is no
// driver or no GPU.
std::vector<CudaDeviceProperties> cuda_devices();

// Makes `ordinal` the calling thread's current CUDA device (dp::Error if it cannot).
void use_cuda_device(int ordinal);

}  // namespace dp
