// The kernels of the sync-free step (issue 40): a batch gathered from the
// data set resident on the GPU by the epoch's order.
#include "backend/cuda/kernel_launch.cuh"
#include "backend/loss_totals.h"

namespace dp::cuda {
namespace {

// A 2-D grid: y over the batch's rows, x over each row's floats, so no
// element index is divided into row and column.
__global__ void gather_rows_kernel(const float* rows, std::size_t row_floats, const float* indices,
                                   std::size_t count, float* out) {
    for (std::size_t k = blockIdx.y; k < count; k += gridDim.y) {
        const float* source = rows + gathered_row_start(indices, k, row_floats);
        float* target = out + k * row_floats;
        for (std::size_t j = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; j < row_floats;
             j += std::size_t(gridDim.x) * blockDim.x)
            target[j] = source[j];
    }
}

}  // namespace

void gather_rows(const Launch& launch, const float* rows, std::size_t row_floats,
                 const float* indices, std::size_t count, float* out) {
    if (count == 0 || row_floats == 0) return;
    const dim3 grid(std::min<unsigned>(blocks_for(row_floats), 64),
                    unsigned(std::min<std::size_t>(count, 65535)));
    gather_rows_kernel<<<grid, kThreads, 0, launch.stream>>>(rows, row_floats, indices, count, out);
    DP_CHECK_LAUNCH(launch, "gather_rows_kernel");
}

}  // namespace dp::cuda
