#include "backend/cuda/conv_algorithm_accuracy.h"

#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include <cuda_runtime.h>
#include <cudnn.h>

#include "backend/algorithm_choice.h"
#include "backend/conv_accuracy.h"
#include "platform/cuda/cuda_check.h"

// The legacy convolution API, as in cudnn_convolution.cpp.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace dp::cuda {
namespace {

// A device buffer of n floats, freed with it.
struct DeviceFloats {
    int device;
    float* data = nullptr;
    std::size_t n;
    DeviceFloats(int device_, std::size_t n_) : device(device_), n(n_) {
        DP_CUDA_CHECK(device, cudaMalloc(&data, n * sizeof(float)));
    }
    ~DeviceFloats() { cudaFree(data); }
    DeviceFloats(const DeviceFloats&) = delete;
    DeviceFloats& operator=(const DeviceFloats&) = delete;
    void upload(const std::vector<float>& values) {
        DP_CUDA_CHECK(device, cudaMemcpy(data, values.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    }
    std::vector<float> download() const {
        std::vector<float> values(n);
        DP_CUDA_CHECK(device, cudaMemcpy(values.data(), data, n * sizeof(float), cudaMemcpyDeviceToHost));
        return values;
    }
};

struct Descriptors {
    cudnnHandle_t handle = nullptr;
    cudnnTensorDescriptor_t x = nullptr, y = nullptr;
    cudnnFilterDescriptor_t w = nullptr;
    cudnnConvolutionDescriptor_t conv = nullptr;
    Descriptors(int device, const Conv2dShape& s) {
        DP_CUDA_CHECK(device, cudnnCreate(&handle));
        DP_CUDA_CHECK(device, cudnnCreateTensorDescriptor(&x));
        DP_CUDA_CHECK(device, cudnnCreateTensorDescriptor(&y));
        DP_CUDA_CHECK(device, cudnnCreateFilterDescriptor(&w));
        DP_CUDA_CHECK(device, cudnnCreateConvolutionDescriptor(&conv));
        DP_CUDA_CHECK(device, cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                                         s.batch, s.in_channels, s.in_h, s.in_w));
        DP_CUDA_CHECK(device, cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                                         s.batch, s.out_channels, s.out_h(), s.out_w()));
        DP_CUDA_CHECK(device, cudnnSetFilter4dDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW,
                                                         s.out_channels, s.in_channels, s.kernel, s.kernel));
        DP_CUDA_CHECK(device, cudnnSetConvolution2dDescriptor(conv, s.pad, s.pad, s.stride, s.stride, 1, 1,
                                                              CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
        DP_CUDA_CHECK(device, cudnnSetConvolutionMathType(conv, CUDNN_FMA_MATH));
    }
    ~Descriptors() {
        cudnnDestroyConvolutionDescriptor(conv);
        cudnnDestroyFilterDescriptor(w);
        cudnnDestroyTensorDescriptor(y);
        cudnnDestroyTensorDescriptor(x);
        cudnnDestroy(handle);
    }
};

std::vector<float> random_floats(std::size_t n, std::mt19937& rng) {
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> values(n);
    for (float& v : values) v = uniform(rng);
    return values;
}

}  // namespace

std::vector<ConvAlgorithmError> conv_algorithm_errors(int device, const Conv2dShape& s,
                                                      std::size_t workspace_bytes, unsigned seed) {
    DP_CUDA_CHECK(device, cudaSetDevice(device));
    std::mt19937 rng(seed);
    const auto xh = random_floats(s.input_size(), rng);
    const auto wh = random_floats(s.weight_size(), rng);
    const auto dyh = random_floats(s.output_size(), rng);
    // The exact passes, in float64 from the same float32 inputs, on a
    // sample of each pass's outputs: the kernel cache's measure (conv_accuracy.h).
    const ConvReference y64(s, ConvPass::forward, xh.data(), wh.data()),
        dx64(s, ConvPass::backward_data, dyh.data(), wh.data()),
        dw64(s, ConvPass::backward_weights, xh.data(), dyh.data());

    Descriptors d(device, s);
    DeviceFloats x(device, xh.size()), w(device, wh.size()), dy(device, dyh.size());
    DeviceFloats y(device, dyh.size()), dx(device, xh.size()), dw(device, wh.size());
    x.upload(xh);
    w.upload(wh);
    dy.upload(dyh);
    void* workspace = nullptr;
    DP_CUDA_CHECK(device, cudaMalloc(&workspace, workspace_bytes));
    const std::unique_ptr<void, decltype(&cudaFree)> workspace_owner(workspace, &cudaFree);
    const float one = 1, zero = 0;
    std::vector<ConvAlgorithmError> table;

    // Each algorithm cuDNN's Find lists for a pass (find(results, count,
    // &returned)), run once (run(algorithm)) and compared; Find's status,
    // workspace and determinism are used, its timings not.
    const auto measure = [&](const char* pass, auto results, auto&& find, auto&& run,
                             const DeviceFloats& out, const ConvReference& exact) {
        int returned = 0;
        DP_CUDA_CHECK(device, find(results.data(), int(results.size()), &returned));
        for (int i = 0; i < returned; ++i) {
            const int algorithm = int(results[i].algo);
            ConvAlgorithmError row{.pass = pass,
                                   .algorithm = algorithm,
                                   .transform = is_transform_algorithm(pass, algorithm),
                                   .deterministic = results[i].determinism == CUDNN_DETERMINISTIC};
            row.ran = results[i].status == CUDNN_STATUS_SUCCESS &&
                      results[i].memory <= workspace_bytes && run(algorithm) == CUDNN_STATUS_SUCCESS;
            if (row.ran) {
                DP_CUDA_CHECK(device, cudaDeviceSynchronize());
                row.relative_error = exact.relative_error(out.download().data());
            }
            table.push_back(row);
        }
    };
    measure("forward", std::vector<cudnnConvolutionFwdAlgoPerf_t>(CUDNN_CONVOLUTION_FWD_ALGO_COUNT),
            [&](auto* results, int count, int* returned) {
                return cudnnFindConvolutionForwardAlgorithmEx(d.handle, d.x, x.data, d.w, w.data, d.conv,
                                                              d.y, y.data, count, returned, results,
                                                              workspace, workspace_bytes);
            },
            [&](int algorithm) {
                return cudnnConvolutionForward(d.handle, &one, d.x, x.data, d.w, w.data, d.conv,
                                               cudnnConvolutionFwdAlgo_t(algorithm), workspace,
                                               workspace_bytes, &zero, d.y, y.data);
            },
            y, y64);
    measure("backward_data", std::vector<cudnnConvolutionBwdDataAlgoPerf_t>(CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT),
            [&](auto* results, int count, int* returned) {
                return cudnnFindConvolutionBackwardDataAlgorithmEx(d.handle, d.w, w.data, d.y, dy.data,
                                                                   d.conv, d.x, dx.data, count, returned,
                                                                   results, workspace, workspace_bytes);
            },
            [&](int algorithm) {
                return cudnnConvolutionBackwardData(d.handle, &one, d.w, w.data, d.y, dy.data, d.conv,
                                                    cudnnConvolutionBwdDataAlgo_t(algorithm), workspace,
                                                    workspace_bytes, &zero, d.x, dx.data);
            },
            dx, dx64);
    measure("backward_weights", std::vector<cudnnConvolutionBwdFilterAlgoPerf_t>(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT),
            [&](auto* results, int count, int* returned) {
                return cudnnFindConvolutionBackwardFilterAlgorithmEx(d.handle, d.x, x.data, d.y, dy.data,
                                                                     d.conv, d.w, dw.data, count, returned,
                                                                     results, workspace, workspace_bytes);
            },
            [&](int algorithm) {
                return cudnnConvolutionBackwardFilter(d.handle, &one, d.x, x.data, d.y, dy.data, d.conv,
                                                      cudnnConvolutionBwdFilterAlgo_t(algorithm), workspace,
                                                      workspace_bytes, &zero, d.w, dw.data);
            },
            dw, dw64);
    return table;
}

}  // namespace dp::cuda
