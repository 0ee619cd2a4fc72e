#pragma once

// The GPUs of this machine, for code that includes no CUDA header (devices/,
// the self-test): what --list-devices shows and how a device thread binds to
// its GPU.

#include <cstddef>
#include <string>
#include <vector>

namespace dp {

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
