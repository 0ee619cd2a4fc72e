#include "platform/cuda/cuda_devices.h"

#include <cuda_runtime.h>

#include "platform/cuda/cuda_check.h"

namespace dp {

std::vector<CudaDeviceProperties> cuda_devices() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();  // no driver or no GPU: not an error here, so leave none behind
        return {};
    }
    std::vector<CudaDeviceProperties> devices;
    for (int ordinal = 0; ordinal < count; ++ordinal) {
        cudaDeviceProp properties{};
        if (cudaGetDeviceProperties(&properties, ordinal) != cudaSuccess) {
            cudaGetLastError();
            continue;
        }
        devices.push_back({ordinal, properties.name, properties.totalGlobalMem,
                           properties.multiProcessorCount});
    }
    return devices;
}

void use_cuda_device(int ordinal) { cuda::set_device(ordinal); }

}  // namespace dp
