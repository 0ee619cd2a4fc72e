#pragma once

// The CUDA backend, for code that does not include CUDA headers (the backend
// factory, tests). The device list is platform/cuda/cuda_devices.h; the
// class itself is cuda_backend_impl.h's, private to this folder.

#include <memory>
#include <string>

#include "backend/backend.h"
#include "backend/cuda_backend_options.h"

namespace dp {

// The backend on CUDA device `ordinal`: cuDNN convolutions, cuBLAS linear
// layers, its own kernels for the rest, one compute stream, device memory
// from an arena that grows only while replicas are built. Makes `ordinal`
// the calling thread's device; use the backend on that thread only.
std::unique_ptr<Backend> make_cuda_backend(int ordinal, const CudaBackendOptions& options);

// "CUDA 13.0, cuDNN 9.19.0, NCCL 2.28.3": the versions this build was
// compiled against (the libraries loaded at run time are the machine's).
std::string cuda_build_versions();

}  // namespace dp
