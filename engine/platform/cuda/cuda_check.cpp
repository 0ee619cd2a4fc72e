#include "platform/cuda/cuda_check.h"

#include <string>

#include "platform/cuda/device_call_error.h"
#include "core/error.h"

namespace dp::cuda {
namespace {

[[noreturn]] void fail(const char* call, const char* file, int line, int device,
                       const std::string& status) {
    throw Error(device_call_error(call, file, line, device, status));
}

}  // namespace

void check(cudaError_t status, const char* call, const char* file, int line, int device) {
    if (status == cudaSuccess) return;
    cudaGetLastError();  // clears a non-sticky error so later calls do not report it again
    fail(call, file, line, device,
         std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status));
}

void check(cudnnStatus_t status, const char* call, const char* file, int line, int device) {
    if (status != CUDNN_STATUS_SUCCESS) fail(call, file, line, device, cudnnGetErrorString(status));
}

void check(cublasStatus_t status, const char* call, const char* file, int line, int device) {
    if (status != CUBLAS_STATUS_SUCCESS)
        fail(call, file, line, device,
             std::string(cublasGetStatusName(status)) + ": " + cublasGetStatusString(status));
}

void check(ncclResult_t status, const char* call, const char* file, int line, int device) {
    if (status != ncclSuccess)
        fail(call, file, line, device,
             std::string(ncclGetErrorString(status)) + " (" + ncclGetLastError(nullptr) + ")");
}

void set_device(int ordinal) { DP_CUDA_CHECK(ordinal, cudaSetDevice(ordinal)); }

}  // namespace dp::cuda
