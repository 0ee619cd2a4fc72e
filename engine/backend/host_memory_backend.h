#pragma once

#include "backend/backend.h"

namespace dp {

// The memory side of the CPU backends: device memory is host memory, so
// transfers are copies and there is nothing to wait for.
class HostMemoryBackend : public Backend {
public:
    // 64-byte aligned (cache lines, AVX-512 vectors) and zeroed, so a buffer
    // never holds stale values.
    DeviceBuffer allocate(std::size_t floats) override;
    void upload(const float* host, float* device, std::size_t floats) override;
    void download(const float* device, float* host, std::size_t floats) override;
    void upload_labels(const std::int32_t* host, float* device, std::size_t count) override;
    void fill(float* device, std::size_t floats, float value) override;
    void copy(std::size_t n, const float* src, float* dst) override;
    void synchronize() override {}
};

}  // namespace dp
