#include "backend/host_memory_backend.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

namespace dp {

DeviceBuffer HostMemoryBackend::allocate(std::size_t floats) {
    const std::size_t bytes = std::max<std::size_t>(64, (floats * sizeof(float) + 63) / 64 * 64);
    auto* data = static_cast<float*>(std::aligned_alloc(64, bytes));
    if (!data) throw std::bad_alloc();
    std::memset(data, 0, bytes);
    return DeviceBuffer(data, [](float* p) { std::free(p); });
}

void HostMemoryBackend::upload(const float* host, float* device, std::size_t floats) {
    if (floats) std::memcpy(device, host, floats * sizeof(float));
}

void HostMemoryBackend::download(const float* device, float* host, std::size_t floats) {
    if (floats) std::memcpy(host, device, floats * sizeof(float));
}

void HostMemoryBackend::upload_labels(const std::int32_t* host, float* device, std::size_t count) {
    std::transform(host, host + count, device, [](std::int32_t label) { return float(label); });
}

void HostMemoryBackend::fill(float* device, std::size_t floats, float value) {
    std::fill_n(device, floats, value);
}

void HostMemoryBackend::copy(std::size_t n, const float* src, float* dst) {
    if (n) std::memcpy(dst, src, n * sizeof(float));
}

}  // namespace dp
