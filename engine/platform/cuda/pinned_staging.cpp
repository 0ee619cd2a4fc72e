#include "platform/cuda/pinned_staging.h"

#include "platform/cuda/driver_allocations.h"

namespace dp::cuda {

PinnedStaging::PinnedStaging(int device, std::size_t chunk_floats)
    : device_(device), chunk_floats_(chunk_floats) {
    try {
        for (int i = 0; i < 2; ++i) {
            DP_CUDA_CHECK(device_, cudaMallocHost(&buffers_[i], chunk_floats_ * sizeof(float)));
            count_driver_allocation();
            DP_CUDA_CHECK(device_, cudaEventCreateWithFlags(&drained_[i], cudaEventDisableTiming));
        }
    } catch (...) {
        release();
        throw;
    }
}

PinnedStaging::~PinnedStaging() { release(); }

void PinnedStaging::release() {
    // Freeing pinned memory that a copy still reads is undefined: wait first.
    for (int i = 0; i < 2; ++i) {
        if (drained_[i]) {
            cudaEventSynchronize(drained_[i]);
            cudaEventDestroy(drained_[i]);
            drained_[i] = nullptr;
        }
        if (buffers_[i]) cudaFreeHost(buffers_[i]);
        buffers_[i] = nullptr;
    }
}

}  // namespace dp::cuda
