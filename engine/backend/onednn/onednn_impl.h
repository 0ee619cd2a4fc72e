#pragma once

// OneDnnBackend's state: the oneDNN engine and stream, the scratch area of
// layout conversions, and one plan cache per op family. Each family's plans
// are built in its own file: onednn_convolution.cpp, onednn_pooling.cpp,
// onednn_linear.cpp, onednn_elementwise.cpp (relu)
// and onednn_losses.cpp (log softmax). Private to engine/backend/onednn/.

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <dnnl.hpp>

#include "backend/onednn/onednn_backend.h"
#include "backend/onednn/onednn_step.h"
#include "backend/plan_cache.h"

namespace dp {

namespace onednn {

// The passes of a convolution, and the kernels it can run (see
// onednn_convolution.cpp). The numbers are what kernel caches store.
enum class ConvOp { forward, backward_data, backward_weights };
enum class ConvKernel { nchw = 0, blocked = 1, nhwc = 2, winograd = 3 };

// A shape's three ops, each built (and its kernel chosen) on its first call:
// evaluation shapes never build a backward.
struct ConvPlan {
    std::optional<Step> ops[3];
};
struct PoolPlan {
    Step forward, backward;
    std::size_t workspace_bytes = 0;  // max pooling's, 0 for average pooling
};
struct LinearPlan {
    Step forward, backward_data, backward_weights;
};
struct ReluPlan {
    Step forward, backward;
};
struct LogSoftmaxPlan {
    Step forward, backward;
};

}  // namespace onednn

struct OneDnnBackend::Impl {
    using Step = onednn::Step;

    explicit Impl(Precision precision) : precision(precision), machine(machine_name(precision)) {}

    // What convolutions and linear layers multiply in (bf16 or f32); their
    // outputs, and every other op, are f32 (onednn_backend.h).
    const Precision precision;
    dnnl::memory::data_type compute_type() const {
        return precision == Precision::bf16 ? dnnl::memory::data_type::bf16
                                            : dnnl::memory::data_type::f32;
    }

    dnnl::engine engine{dnnl::engine::kind::cpu, 0};
    dnnl::stream stream{engine};

    // ---------------------------------------------------- onednn_convolution.cpp
    PlanCache<Conv2dShape, onednn::ConvPlan> conv_plans;
    std::vector<float> zero_bias;  // the bias of a convolution called without one
    // The step of `op` for shape `s`, its kernel chosen on first use.
    Step& conv_step(const Conv2dShape& s, onednn::ConvOp op, onednn::Handles handles);
    // Throws dnnl::error where oneDNN has no such kernel for the shape;
    // the try_ form returns none there.
    Step build_conv_step(const Conv2dShape& s, onednn::ConvOp op, onednn::ConvKernel kernel);
    std::optional<Step> try_build_conv_step(const Conv2dShape& s, onednn::ConvOp op,
                                            onednn::ConvKernel kernel);
    // Whether the Winograd kernel is among a shape's candidates.
    bool winograd_candidate(const Conv2dShape& s) const;
    // A choice holds for this library, ISA, CPU and precision only.
    std::string conv_key(const Conv2dShape& s, onednn::ConvOp op) const;
    static std::string machine_name(Precision precision);
    const std::string machine;

    // ---------------------------------------------------- onednn_pooling.cpp
    PlanCache<Pool2dShape, onednn::PoolPlan> pool_plans;
    PlanCache<Pool2dShape, onednn::PoolPlan> max_pool_plans;
    PlanCache<NchwShape, onednn::PoolPlan> global_pool_plans;
    onednn::PoolPlan build_pooling(dnnl::algorithm algorithm, const dnnl::memory::desc& src,
                                   const dnnl::memory::desc& dst, const dnnl::memory::dims& kernel,
                                   const dnnl::memory::dims& strides,
                                   const dnnl::memory::dims& padding);
    onednn::PoolPlan build_pool(const Pool2dShape& s, dnnl::algorithm algorithm);
    onednn::PoolPlan build_global_pool(const NchwShape& s);
    onednn::PoolPlan& avg_pool(const Pool2dShape& s);
    onednn::PoolPlan& max_pool(const Pool2dShape& s);
    onednn::PoolPlan& global_pool(const NchwShape& s);

    // ---------------------------------------------------- onednn_linear.cpp
    PlanCache<LinearShape, onednn::LinearPlan> linear_plans;
    onednn::LinearPlan build_linear(const LinearShape& s);
    onednn::LinearPlan& linear(const LinearShape& s);

    // ---------------------------------------------------- onednn_elementwise.cpp
    PlanCache<std::size_t, onednn::ReluPlan> relu_plans;
    onednn::ReluPlan build_relu(std::size_t n);
    onednn::ReluPlan& relu(std::size_t n);

    // ---------------------------------------------------- onednn_losses.cpp
    PlanCache<std::pair<int, int>, onednn::LogSoftmaxPlan> log_softmax_plans;  // (batch, classes)
    onednn::LogSoftmaxPlan build_log_softmax(std::pair<int, int> rows);
    onednn::LogSoftmaxPlan& log_softmax(int batch, int classes);

    // ---------------------------------------------------- onednn_backend.cpp
    // The conversions of one step at a time live here: steps run one after
    // another on a backend's thread, so every plan shares one area, grown
    // while plans are built and never in the step loop.
    void reserve_scratch(std::size_t bytes);
    std::unique_ptr<std::byte, decltype(&std::free)> scratch{nullptr, &std::free};
    std::size_t scratch_bytes = 0;
};

}  // namespace dp
