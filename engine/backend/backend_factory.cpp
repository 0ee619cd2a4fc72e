#include "backend/backend_factory.h"

#include "backend/onednn/onednn_backend.h"
#include "core/error.h"
#ifdef DP_HAVE_CUDA
#include "backend/cuda/cuda_backend.h"
#endif

namespace dp {

std::unique_ptr<Backend> make_backend(const DeviceInfo& device) {
#ifdef DP_HAVE_CUDA
    if (device.kind == DeviceKind::cuda)
        return make_cuda_backend(device.cuda_ordinal, cuda_backend_options_from_environment());
#endif
    if (device.kind != DeviceKind::cpu)
        throw Error("device " + device.id + " needs the CUDA backend, which this build lacks");
    return std::make_unique<OneDnnBackend>();
}

}  // namespace dp
