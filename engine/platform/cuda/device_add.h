#pragma once

#include <cstddef>

#include <cuda_runtime.h>

namespace dp::cuda {

// dst[i] += src[i] for i < n, queued on `stream` of `device`: the one
// reduction of the GPU replicas' all-reduce (replica_copy_communicator.h),
// the same float addition the host strategies make. src and dst may be
// another replica's memory on the same GPU.
void add_into(cudaStream_t stream, int device, std::size_t n, const float* src, float* dst);

}  // namespace dp::cuda
