#pragma once

#include <cstdint>

namespace dp {

// How many times the CUDA backend has asked the driver for memory (device
// chunks, pinned staging) in this process: the tests check that a training
// step does not change it.
std::uint64_t cuda_driver_allocations();

namespace cuda {
// Counts one driver allocation; called next to every cudaMalloc and cudaMallocHost.
void count_driver_allocation();
}  // namespace cuda

}  // namespace dp
