#pragma once

#include <cstddef>
#include <vector>

namespace dp::cuda {

// A device's memory for one backend: large chunks from cudaMalloc carved into
// 256-byte aligned blocks. Blocks are never returned one by one; all of it
// goes back to the driver when the arena is destroyed. The backend allocates
// only while replicas are built, so the step loop never reaches the driver
// (cudaMalloc synchronizes the device and has hung NCCL elsewhere).
class DeviceArena {
public:
    DeviceArena(int device, std::size_t chunk_bytes);
    ~DeviceArena();
    DeviceArena(const DeviceArena&) = delete;
    DeviceArena& operator=(const DeviceArena&) = delete;

    // `bytes` of device memory, valid until the arena is destroyed.
    void* allocate(std::size_t bytes);

private:
    struct Chunk {
        char* data;
        std::size_t size, used;
    };
    int device_;
    std::size_t chunk_bytes_;
    std::vector<Chunk> chunks_;
};

}  // namespace dp::cuda
