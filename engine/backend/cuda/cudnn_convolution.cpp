#include "backend/cuda/cudnn_convolution.h"

#include <cuda_runtime.h>

#include <optional>
#include <string>
#include <vector>

#include "backend/algorithm_choice.h"
#include "backend/cuda/cuda_kernels.h"
#include "platform/cuda/cuda_check.h"
#include "backend/kernel_choices.h"
#include "core/error.h"

// cuDNN 9 marks its legacy convolution API (descriptors, Find, the three
// convolution calls) deprecated in favour of the graph API, yet keeps and
// supports it; it is the API the rest of this file is written against, so
// the warning is silenced here, and only here.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace dp::cuda {
struct CudnnConvolution::Plan {
    cudnnTensorDescriptor_t x = nullptr, y = nullptr;
    cudnnFilterDescriptor_t w = nullptr;
    cudnnConvolutionDescriptor_t conv = nullptr;
    std::optional<int> forward, backward_data, backward_filter;  // algorithms
    // bf16 precision's copies of x (and dx), w (and dw), y (and dy).
    std::uint16_t *x16 = nullptr, *w16 = nullptr, *y16 = nullptr;

    Plan() = default;
    Plan(const Plan&) = delete;
    Plan& operator=(const Plan&) = delete;
    ~Plan() {
        if (conv) cudnnDestroyConvolutionDescriptor(conv);
        if (w) cudnnDestroyFilterDescriptor(w);
        if (y) cudnnDestroyTensorDescriptor(y);
        if (x) cudnnDestroyTensorDescriptor(x);
    }
};

namespace {

std::string describe(const Conv2dShape& s) {
    return "conv2d " + std::to_string(s.batch) + "x" + std::to_string(s.in_channels) + "x" +
           std::to_string(s.in_h) + "x" + std::to_string(s.in_w) + " -> " +
           std::to_string(s.out_channels) + " channels (kernel " + std::to_string(s.kernel) +
           ", stride " + std::to_string(s.stride) + ", pad " + std::to_string(s.pad) + ")";
}

// is_transform_algorithm (algorithm_choice.h) knows cuDNN 9's numbers.
static_assert(CUDNN_CONVOLUTION_FWD_ALGO_FFT == 4 && CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED == 7 &&
              CUDNN_CONVOLUTION_FWD_ALGO_COUNT == 8);
static_assert(CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT == 2 &&
              CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED == 5 &&
              CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT == 6);
static_assert(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT == 2 && CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3 == 3 &&
              CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD == 4 &&
              CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING == 6 &&
              CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT == 7);

cudnnMathType_t cudnn_math(ConvMath math) {
    return math == ConvMath::fma ? CUDNN_FMA_MATH : CUDNN_TENSOR_OP_MATH;
}

// cuDNN's Find results of any pass, chosen among by the host-side rule. The
// math it reports is not used: the precision decides it (conv_math).
template <typename Perf>
int choose(const std::vector<Perf>& results, int returned, const char* pass, const char* op,
           const Conv2dShape& s, const CudaBackendOptions& options) {
    const ConvMath math = conv_math(options);
    const AlgorithmRules rules{.workspace_cap = options.workspace_bytes,
                               .deterministic_only = options.deterministic,
                               .transforms = math != ConvMath::fma || options.fp32_transforms,
                               .fma_only = math == ConvMath::fma};
    std::vector<AlgorithmTiming> timings;
    for (int i = 0; i < returned; ++i)
        timings.push_back({.algorithm = int(results[i].algo),
                           .ran = results[i].status == CUDNN_STATUS_SUCCESS,
                           .milliseconds = results[i].time,
                           .workspace_bytes = results[i].memory,
                           .deterministic = results[i].determinism == CUDNN_DETERMINISTIC,
                           .transform = is_transform_algorithm(pass, int(results[i].algo)),
                           .tensor_op_timing = results[i].mathType == CUDNN_TENSOR_OP_MATH ||
                                               results[i].mathType ==
                                                   CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION});
    const auto chosen = choose_algorithm(timings, rules);
    if (!chosen) throw Error(no_algorithm_message(op, describe(s), rules));
    return int(results[*chosen].algo);
}

}  // namespace

CudnnConvolution::CudnnConvolution(int device, cudnnHandle_t handle, void* workspace,
                                   const CudaBackendOptions& options,
                                   std::function<void*(std::size_t)> allocate)
    : device_(device),
      handle_(handle),
      workspace_(workspace),
      options_(options),
      allocate_(std::move(allocate)) {
    cudaDeviceProp properties{};
    DP_CUDA_CHECK(device_, cudaGetDeviceProperties(&properties, device_));
    DP_CUDA_CHECK(device_, cudnnGetStream(handle_, &stream_));
    machine_ = "cudnn " + std::to_string(cudnnGetVersion()) + " " + conv_math_name(options_) +
               (options_.deterministic ? " deterministic" : "") + " ws" +
               std::to_string(options_.workspace_bytes >> 20) + " | " + properties.name;
}

int CudnnConvolution::cached_algorithm(const char* pass, const Conv2dShape& s,
                                       const std::function<int()>& find) {
    const ConvMath math = conv_math(options_);
    const std::string key = conv_choice_key(machine_, pass, s);
    const int code = kernel_choices().choose(key, -1, [&] { return encode_conv_choice(find(), math); });
    return decode_conv_choice(code, math, key);
}

void CudnnConvolution::set_math(const Plan& p) const {
    DP_CUDA_CHECK(device_, cudnnSetConvolutionMathType(p.conv, cudnn_math(conv_math(options_))));
}

CudnnConvolution::~CudnnConvolution() = default;

const void* CudnnConvolution::input(const float* x, std::size_t n, std::uint16_t* copy) {
    if (!options_.bf16) return x;
    cuda::round_to_bf16({stream_, device_}, n, x, copy);
    return copy;
}

void* CudnnConvolution::output(float* y, std::uint16_t* copy) const {
    return options_.bf16 ? static_cast<void*>(copy) : y;
}

void CudnnConvolution::finish(float* y, std::size_t n, const std::uint16_t* copy) {
    if (options_.bf16) cuda::widen_bf16({stream_, device_}, n, copy, y);
}

CudnnConvolution::Plan& CudnnConvolution::plan(const Conv2dShape& s) {
    return *plans_.get(s, [this](const Conv2dShape& shape) {
        auto plan = std::make_unique<Plan>();
        // cuDNN's pseudo-bf16 configuration: bf16 tensors, float compute.
        const cudnnDataType_t tensors = options_.bf16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_FLOAT;
        if (options_.bf16) {
            const auto copy = [&](std::size_t n) {
                return static_cast<std::uint16_t*>(allocate_(n * sizeof(std::uint16_t)));
            };
            plan->x16 = copy(shape.input_size());
            plan->w16 = copy(shape.weight_size());
            plan->y16 = copy(shape.output_size());
        }
        DP_CUDA_CHECK(device_, cudnnCreateTensorDescriptor(&plan->x));
        DP_CUDA_CHECK(device_, cudnnCreateTensorDescriptor(&plan->y));
        DP_CUDA_CHECK(device_, cudnnCreateFilterDescriptor(&plan->w));
        DP_CUDA_CHECK(device_, cudnnCreateConvolutionDescriptor(&plan->conv));
        DP_CUDA_CHECK(device_, cudnnSetTensor4dDescriptor(plan->x, CUDNN_TENSOR_NCHW,
                                                          tensors, shape.batch,
                                                          shape.in_channels, shape.in_h,
                                                          shape.in_w));
        DP_CUDA_CHECK(device_, cudnnSetTensor4dDescriptor(plan->y, CUDNN_TENSOR_NCHW,
                                                          tensors, shape.batch,
                                                          shape.out_channels, shape.out_h(),
                                                          shape.out_w()));
        DP_CUDA_CHECK(device_, cudnnSetFilter4dDescriptor(plan->w, tensors,
                                                          CUDNN_TENSOR_NCHW, shape.out_channels,
                                                          shape.in_channels, shape.kernel,
                                                          shape.kernel));
        DP_CUDA_CHECK(device_, cudnnSetConvolution2dDescriptor(
                                   plan->conv, shape.pad, shape.pad, shape.stride, shape.stride,
                                   1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
        // FMA math keeps float32 products exact, as on the CPU; tensor-op
        // math lets cuDNN use TF32 (float tensors) or bf16 tensor cores.
        set_math(*plan);
        return plan;
    });
}

void CudnnConvolution::forward(const Conv2dShape& s, const float* x_float,
                               const float* w_float, float* y_float) {
    Plan& p = plan(s);
    const void* x = input(x_float, s.input_size(), p.x16);
    const void* w = input(w_float, s.weight_size(), p.w16);
    void* y = output(y_float, p.y16);
    if (!p.forward) p.forward = cached_algorithm("forward", s, [&] {
        int max_count = 0, returned = 0;
        DP_CUDA_CHECK(device_, cudnnGetConvolutionForwardAlgorithmMaxCount(handle_, &max_count));
        std::vector<cudnnConvolutionFwdAlgoPerf_t> results(max_count);
        DP_CUDA_CHECK(device_, cudnnFindConvolutionForwardAlgorithmEx(
                                   handle_, p.x, x, p.w, w, p.conv, p.y, y, max_count, &returned,
                                   results.data(), workspace_, options_.workspace_bytes));
        return choose(results, returned, "forward", "convolution forward", s, options_);
    });
    const float one = 1, zero = 0;
    set_math(p);
    DP_CUDA_CHECK(device_, cudnnConvolutionForward(
                               handle_, &one, p.x, x, p.w, w, p.conv,
                               cudnnConvolutionFwdAlgo_t(*p.forward), workspace_,
                               options_.workspace_bytes, &zero, p.y, y));
    finish(y_float, s.output_size(), p.y16);
}

void CudnnConvolution::backward_data(const Conv2dShape& s, const float* dy_float,
                                     const float* w_float, float* dx_float) {
    Plan& p = plan(s);
    const void* dy = input(dy_float, s.output_size(), p.y16);
    const void* w = input(w_float, s.weight_size(), p.w16);
    void* dx = output(dx_float, p.x16);
    if (!p.backward_data) p.backward_data = cached_algorithm("backward_data", s, [&] {
        int max_count = 0, returned = 0;
        DP_CUDA_CHECK(device_,
                      cudnnGetConvolutionBackwardDataAlgorithmMaxCount(handle_, &max_count));
        std::vector<cudnnConvolutionBwdDataAlgoPerf_t> results(max_count);
        DP_CUDA_CHECK(device_, cudnnFindConvolutionBackwardDataAlgorithmEx(
                                   handle_, p.w, w, p.y, dy, p.conv, p.x, dx, max_count,
                                   &returned, results.data(), workspace_,
                                   options_.workspace_bytes));
        return choose(results, returned, "backward_data", "convolution backward-data", s, options_);
    });
    const float one = 1, zero = 0;
    set_math(p);
    DP_CUDA_CHECK(device_, cudnnConvolutionBackwardData(
                               handle_, &one, p.w, w, p.y, dy, p.conv,
                               cudnnConvolutionBwdDataAlgo_t(*p.backward_data),
                               workspace_, options_.workspace_bytes, &zero, p.x, dx));
    finish(dx_float, s.input_size(), p.x16);
}

void CudnnConvolution::backward_filter(const Conv2dShape& s, const float* x_float,
                                       const float* dy_float, float* dw_float) {
    Plan& p = plan(s);
    const void* x = input(x_float, s.input_size(), p.x16);
    const void* dy = input(dy_float, s.output_size(), p.y16);
    void* dw = output(dw_float, p.w16);
    if (!p.backward_filter) p.backward_filter = cached_algorithm("backward_weights", s, [&] {
        int max_count = 0, returned = 0;
        DP_CUDA_CHECK(device_,
                      cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(handle_, &max_count));
        std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> results(max_count);
        DP_CUDA_CHECK(device_, cudnnFindConvolutionBackwardFilterAlgorithmEx(
                                   handle_, p.x, x, p.y, dy, p.conv, p.w, dw, max_count,
                                   &returned, results.data(), workspace_,
                                   options_.workspace_bytes));
        return choose(results, returned, "backward_weights", "convolution backward-filter", s, options_);
    });
    const float one = 1, zero = 0;
    set_math(p);
    DP_CUDA_CHECK(device_, cudnnConvolutionBackwardFilter(
                               handle_, &one, p.x, x, p.y, dy, p.conv,
                               cudnnConvolutionBwdFilterAlgo_t(*p.backward_filter),
                               workspace_, options_.workspace_bytes, &zero, p.w, dw));
    finish(dw_float, s.weight_size(), p.w16);
}

}  // namespace dp::cuda
