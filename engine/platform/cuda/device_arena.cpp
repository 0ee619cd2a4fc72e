#include "platform/cuda/device_arena.h"

#include <algorithm>
#include <atomic>

#include "platform/cuda/cuda_check.h"
#include "platform/cuda/driver_allocations.h"

namespace dp {
namespace {
std::atomic<std::uint64_t> driver_allocations{0};
}  // namespace

std::uint64_t cuda_driver_allocations() { return driver_allocations.load(); }

namespace cuda {

void count_driver_allocation() { ++driver_allocations; }

namespace {
constexpr std::size_t kAlignment = 256;  // cudaMalloc's own, which cuDNN and cuBLAS expect
}

DeviceArena::DeviceArena(int device, std::size_t chunk_bytes)
    : device_(device), chunk_bytes_(chunk_bytes) {}

DeviceArena::~DeviceArena() {
    for (const Chunk& chunk : chunks_) cudaFree(chunk.data);  // errors: nothing left to do
}

void* DeviceArena::allocate(std::size_t bytes) {
    bytes = std::max<std::size_t>(kAlignment, (bytes + kAlignment - 1) / kAlignment * kAlignment);
    if (chunks_.empty() || chunks_.back().size - chunks_.back().used < bytes) {
        Chunk chunk{nullptr, std::max(bytes, chunk_bytes_), 0};
        DP_CUDA_CHECK(device_, cudaMalloc(&chunk.data, chunk.size));
        count_driver_allocation();
        chunks_.push_back(chunk);
    }
    Chunk& chunk = chunks_.back();
    void* block = chunk.data + chunk.used;
    chunk.used += bytes;
    return block;
}

}  // namespace cuda
}  // namespace dp
