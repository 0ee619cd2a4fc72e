// CudaBackend's construction, memory and stream; the ops are in
// cuda_<family>.cpp (see cuda_backend_impl.h).

#include "backend/cuda/cuda_backend.h"

#include <algorithm>
#include <cstring>
#include <string>

#include <nccl.h>

#include "backend/cuda/cuda_backend_impl.h"
#include "platform/cuda/cuda_check.h"
#include "platform/cuda/driver_allocations.h"

namespace dp {
namespace cuda {
namespace {

// Sizes of what the backend sets aside at start.
constexpr std::size_t kArenaChunkBytes = std::size_t(256) << 20;
constexpr std::size_t kCublasWorkspaceBytes = std::size_t(32) << 20;  // NVIDIA's advice for Hopper
constexpr std::size_t kStagingChunkFloats = std::size_t(1) << 20;     // 4 MiB per pinned buffer

}  // namespace

CudaBackend::CudaBackend(int ordinal, const CudaBackendOptions& options)
    : device_(select(ordinal)),
      stream_(create_stream(device_)),
      arena_(device_, kArenaChunkBytes),
      cudnn_(create_cudnn(device_, stream_.get())),
      cublas_(create_cublas(device_, stream_.get())),
      staging_(device_, kStagingChunkFloats),
      loss_sums_(static_cast<cuda::LossSums*>(arena_.allocate(sizeof(cuda::LossSums)))),
      host_loss_sums_(allocate_pinned(device_, sizeof(cuda::LossSums))),
      reduction_partials_(static_cast<cuda::ChannelPartial*>(arena_.allocate(
          cuda::kReductionPartialsCapacity * sizeof(cuda::ChannelPartial)))),
      convolution_(device_, cudnn_.get(), arena_.allocate(options.workspace_bytes), options,
                   [this](std::size_t bytes) { return arena_.allocate(bytes); }),
      cudnn_batch_norm_(device_, cudnn_.get(), options.batch_norm,
                        [this](std::size_t bytes) { return arena_.allocate(bytes); }),
      bf16_(options.bf16),
      stream_registration_(stream_.get()),
      step_graphs_(device_, stream_.get(), options.step_graphs) {
    DP_CUDA_CHECK(device_, cublasSetWorkspace(cublas_.get(),
                                              arena_.allocate(kCublasWorkspaceBytes),
                                              kCublasWorkspaceBytes));
    DP_CUDA_CHECK(device_, cublasSetMathMode(cublas_.get(), options.allow_tf32
                                                                ? CUBLAS_TF32_TENSOR_OP_MATH
                                                                : CUBLAS_DEFAULT_MATH));
}

CudaBackend::~CudaBackend() {
    cudaStreamSynchronize(stream_.get());  // nothing may still run on what is freed below
}

// ---- memory

DeviceBuffer CudaBackend::allocate(std::size_t floats) {
    const std::size_t bytes = std::max<std::size_t>(1, floats) * sizeof(float);
    auto* data = static_cast<float*>(arena_.allocate(bytes));
    DP_CUDA_CHECK(device_, cudaMemsetAsync(data, 0, bytes, stream_.get()));
    // The arena owns the memory and releases it with the backend.
    return DeviceBuffer(data, [](float*) {});
}

void CudaBackend::upload(const float* host, float* device, std::size_t floats) {
    staging_.upload(stream_.get(), device, floats,
                    [host](float* staging, std::size_t first, std::size_t n) {
                        std::memcpy(staging, host + first, n * sizeof(float));
                    });
}

void CudaBackend::upload_labels(const std::int32_t* host, float* device, std::size_t count) {
    staging_.upload(stream_.get(), device, count,
                    [host](float* staging, std::size_t first, std::size_t n) {
                        std::transform(host + first, host + first + n, staging,
                                       [](std::int32_t label) { return float(label); });
                    });
}

void CudaBackend::download(const float* device, float* host, std::size_t floats) {
    if (!floats) return;
    DP_CUDA_CHECK(device_, cudaMemcpyAsync(host, device, floats * sizeof(float),
                                           cudaMemcpyDeviceToHost, stream_.get()));
    synchronize();
}

void CudaBackend::fill(float* device, std::size_t floats, float value) {
    cuda::fill(launch(), floats, value, device);
}

void CudaBackend::copy(std::size_t n, const float* src, float* dst) {
    if (!n) return;
    DP_CUDA_CHECK(device_, cudaMemcpyAsync(dst, src, n * sizeof(float), cudaMemcpyDeviceToDevice,
                                           stream_.get()));
}

void CudaBackend::synchronize() { DP_CUDA_CHECK(device_, cudaStreamSynchronize(stream_.get())); }

StepGraphAction CudaBackend::run_step(const StepGraphRequest& request, StepWork step) {
    return step_graphs_.run(request, step);
}

int CudaBackend::select(int ordinal) {
    cuda::set_device(ordinal);
    return ordinal;
}
Stream CudaBackend::create_stream(int device) {
    cudaStream_t stream = nullptr;
    DP_CUDA_CHECK(device, cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    return Stream(stream);
}
CudnnHandle CudaBackend::create_cudnn(int device, cudaStream_t stream) {
    cudnnHandle_t handle = nullptr;
    DP_CUDA_CHECK(device, cudnnCreate(&handle));
    CudnnHandle owned(handle);
    DP_CUDA_CHECK(device, cudnnSetStream(handle, stream));
    return owned;
}
CublasHandle CudaBackend::create_cublas(int device, cudaStream_t stream) {
    cublasHandle_t handle = nullptr;
    DP_CUDA_CHECK(device, cublasCreate(&handle));
    CublasHandle owned(handle);
    DP_CUDA_CHECK(device, cublasSetStream(handle, stream));
    return owned;
}
std::unique_ptr<cuda::LossSums, PinnedDeleter> CudaBackend::allocate_pinned(int device,
                                                                            std::size_t bytes) {
    void* data = nullptr;
    DP_CUDA_CHECK(device, cudaMallocHost(&data, bytes));
    cuda::count_driver_allocation();
    return std::unique_ptr<cuda::LossSums, PinnedDeleter>(static_cast<cuda::LossSums*>(data));
}

}  // namespace cuda

std::unique_ptr<Backend> make_cuda_backend(int ordinal, const CudaBackendOptions& options) {
    return std::make_unique<cuda::CudaBackend>(ordinal, options);
}

}  // namespace dp

namespace dp {

std::string cuda_build_versions() {
    const auto dotted = [](int major, int minor, int patch) {
        std::string text = std::to_string(major) + "." + std::to_string(minor);
        if (patch >= 0) (text += ".") += std::to_string(patch);  // += : GCC 12's -Wrestrict
        return text;
    };
    return "CUDA " + dotted(CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10, -1) + ", cuDNN " +
           dotted(CUDNN_MAJOR, CUDNN_MINOR, CUDNN_PATCHLEVEL) + ", NCCL " +
           dotted(NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH);
}

}  // namespace dp
