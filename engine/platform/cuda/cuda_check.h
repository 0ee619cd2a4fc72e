#pragma once

// Every CUDA runtime, cuDNN, cuBLAS and NCCL call of the CUDA backend and of
// the NCCL communicator goes through DP_CUDA_CHECK, which turns a failure
// into a dp::Error naming the function, the file and line, the device and
// the library's message (platform/cuda/device_call_error.h).

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <nccl.h>

namespace dp::cuda {

void check(cudaError_t status, const char* call, const char* file, int line, int device);
void check(cudnnStatus_t status, const char* call, const char* file, int line, int device);
void check(cublasStatus_t status, const char* call, const char* file, int line, int device);
void check(ncclResult_t status, const char* call, const char* file, int line, int device);

// Makes `ordinal` the calling thread's current device, checked.
void set_device(int ordinal);

// Puts the calling thread's current device back when the scope ends, for
// constructors and destructors that visit every rank's device.
class CurrentDeviceRestorer {
public:
    CurrentDeviceRestorer() {
        if (cudaGetDevice(&saved_) != cudaSuccess) {
            cudaGetLastError();
            saved_ = -1;
        }
    }
    ~CurrentDeviceRestorer() {
        if (saved_ >= 0) cudaSetDevice(saved_);
    }
    CurrentDeviceRestorer(const CurrentDeviceRestorer&) = delete;
    CurrentDeviceRestorer& operator=(const CurrentDeviceRestorer&) = delete;

private:
    int saved_ = -1;
};

}  // namespace dp::cuda

#define DP_CUDA_CHECK(device, call) ::dp::cuda::check((call), #call, __FILE__, __LINE__, (device))
