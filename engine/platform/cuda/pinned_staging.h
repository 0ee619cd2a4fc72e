#pragma once

#include <algorithm>
#include <cstddef>

#include <cuda_runtime.h>

#include "platform/cuda/cuda_check.h"

namespace dp::cuda {

// Host-to-device copies through two pinned buffers, so the host fills one
// while the DMA engine drains the other and upload() returns before the last
// chunk has landed: the stream orders it before the kernels that read it.
class PinnedStaging {
public:
    PinnedStaging(int device, std::size_t chunk_floats);
    ~PinnedStaging();
    PinnedStaging(const PinnedStaging&) = delete;
    PinnedStaging& operator=(const PinnedStaging&) = delete;

    // Copies `count` floats to `device_data` on `stream`; fill(staging, first,
    // n) writes elements [first, first + n) of the source into `staging`.
    template <typename Fill>
    void upload(cudaStream_t stream, float* device_data, std::size_t count, Fill&& fill) {
        for (std::size_t first = 0; first < count; first += chunk_floats_) {
            const std::size_t n = std::min(chunk_floats_, count - first);
            next_ ^= 1;
            // The copy that last read this buffer must be done before it is refilled.
            DP_CUDA_CHECK(device_, cudaEventSynchronize(drained_[next_]));
            fill(buffers_[next_], first, n);
            DP_CUDA_CHECK(device_, cudaMemcpyAsync(device_data + first, buffers_[next_],
                                                   n * sizeof(float), cudaMemcpyHostToDevice,
                                                   stream));
            DP_CUDA_CHECK(device_, cudaEventRecord(drained_[next_], stream));
        }
    }

private:
    void release();

    int device_;
    std::size_t chunk_floats_;
    float* buffers_[2] = {nullptr, nullptr};
    cudaEvent_t drained_[2] = {nullptr, nullptr};
    int next_ = 0;
};

}  // namespace dp::cuda
