#include "backend/onednn/onednn_backend.h"

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <unordered_map>
#include <utility>

#include <dnnl.hpp>

#include "backend/plan_cache.h"
#include "backend/reference/reference_ops.h"

namespace dp {
namespace {

using dnnl::memory;
using tag = memory::format_tag;
constexpr auto f32 = memory::data_type::f32;

// One oneDNN primitive with its memory objects bound once. A call only swaps
// the data handles, so executing it allocates nothing.
struct Step {
    dnnl::primitive primitive;
    std::unordered_map<int, memory> args;

    void run(dnnl::stream& stream, std::initializer_list<std::pair<int, const float*>> handles) {
        for (const auto& [arg, pointer] : handles)
            args.at(arg).set_data_handle(const_cast<float*>(pointer));
        primitive.execute(stream, args);
    }
};

Step make_step(dnnl::primitive primitive, const dnnl::engine& engine,
               std::initializer_list<std::pair<int, memory::desc>> args) {
    Step step{std::move(primitive), {}};
    for (const auto& [arg, desc] : args) step.args.emplace(arg, memory(desc, engine, DNNL_MEMORY_NONE));
    return step;
}

memory::desc nchw(int n, int c, int h, int w) { return {{n, c, h, w}, f32, tag::nchw}; }
memory::desc vec(int n) { return {{n}, f32, tag::a}; }

struct ConvPlan {
    Step forward, backward_data, backward_weights;
};
struct PoolPlan {
    Step forward, backward;
};
struct LinearPlan {
    Step forward, backward_data, backward_weights;
};
struct ReluPlan {
    Step forward, backward;
};

}  // namespace

struct OneDnnBackend::Impl {
    dnnl::engine engine{dnnl::engine::kind::cpu, 0};
    dnnl::stream stream{engine};
    PlanCache<Conv2dShape, ConvPlan> conv_plans;
    PlanCache<Pool2dShape, PoolPlan> pool_plans;
    PlanCache<LinearShape, LinearPlan> linear_plans;
    PlanCache<std::size_t, ReluPlan> relu_plans;

    ConvPlan build_conv(const Conv2dShape& s) {
        using namespace dnnl;
        auto src = nchw(s.batch, s.in_channels, s.in_h, s.in_w);
        auto dst = nchw(s.batch, s.out_channels, s.out_h(), s.out_w());
        memory::desc weights({s.out_channels, s.in_channels, s.kernel, s.kernel}, f32, tag::oihw);
        auto bias = vec(s.out_channels);
        memory::dims strides{s.stride, s.stride}, padding{s.pad, s.pad};

        convolution_forward::primitive_desc fwd(
            {prop_kind::forward_training, algorithm::convolution_direct, src, weights, bias, dst,
             strides, padding, padding},
            engine);
        convolution_backward_data::primitive_desc bwd_data(
            {algorithm::convolution_direct, src, weights, dst, strides, padding, padding}, engine,
            fwd);
        convolution_backward_weights::primitive_desc bwd_weights(
            {algorithm::convolution_direct, src, weights, bias, dst, strides, padding, padding},
            engine, fwd);
        return {
            make_step(convolution_forward(fwd), engine,
                      {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_BIAS, bias},
                       {DNNL_ARG_DST, dst}}),
            make_step(convolution_backward_data(bwd_data), engine,
                      {{DNNL_ARG_DIFF_DST, dst}, {DNNL_ARG_WEIGHTS, weights},
                       {DNNL_ARG_DIFF_SRC, src}}),
            make_step(convolution_backward_weights(bwd_weights), engine,
                      {{DNNL_ARG_SRC, src}, {DNNL_ARG_DIFF_DST, dst},
                       {DNNL_ARG_DIFF_WEIGHTS, weights}, {DNNL_ARG_DIFF_BIAS, bias}}),
        };
    }

    PoolPlan build_pool(const Pool2dShape& s) {
        using namespace dnnl;
        auto src = nchw(s.batch, s.channels, s.in_h, s.in_w);
        auto dst = nchw(s.batch, s.channels, s.out_h(), s.out_w());
        memory::dims strides{s.stride, s.stride}, kernel{s.kernel, s.kernel}, padding{0, 0};
        pooling_forward::primitive_desc fwd({prop_kind::forward_training,
                                             algorithm::pooling_avg_exclude_padding, src, dst,
                                             strides, kernel, padding, padding},
                                            engine);
        pooling_backward::primitive_desc bwd(
            {algorithm::pooling_avg_exclude_padding, src, dst, strides, kernel, padding, padding},
            engine, fwd);
        return {
            make_step(pooling_forward(fwd), engine, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}),
            make_step(pooling_backward(bwd), engine, {{DNNL_ARG_DIFF_DST, dst}, {DNNL_ARG_DIFF_SRC, src}}),
        };
    }

    LinearPlan build_linear(const LinearShape& s) {
        using namespace dnnl;
        memory::desc src({s.batch, s.in_features}, f32, tag::nc);
        memory::desc dst({s.batch, s.out_features}, f32, tag::nc);
        memory::desc weights({s.out_features, s.in_features}, f32, tag::oi);
        auto bias = vec(s.out_features);
        inner_product_forward::primitive_desc fwd(
            {prop_kind::forward_training, src, weights, bias, dst}, engine);
        inner_product_backward_data::primitive_desc bwd_data({src, weights, dst}, engine, fwd);
        inner_product_backward_weights::primitive_desc bwd_weights({src, weights, bias, dst},
                                                                   engine, fwd);
        return {
            make_step(inner_product_forward(fwd), engine,
                      {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_BIAS, bias},
                       {DNNL_ARG_DST, dst}}),
            make_step(inner_product_backward_data(bwd_data), engine,
                      {{DNNL_ARG_DIFF_DST, dst}, {DNNL_ARG_WEIGHTS, weights},
                       {DNNL_ARG_DIFF_SRC, src}}),
            make_step(inner_product_backward_weights(bwd_weights), engine,
                      {{DNNL_ARG_SRC, src}, {DNNL_ARG_DIFF_DST, dst},
                       {DNNL_ARG_DIFF_WEIGHTS, weights}, {DNNL_ARG_DIFF_BIAS, bias}}),
        };
    }

    ReluPlan build_relu(std::size_t n) {
        using namespace dnnl;
        // The backward reads the forward output, so callers need not keep the input.
        constexpr auto relu = algorithm::eltwise_relu_use_dst_for_bwd;
        auto data = vec(static_cast<int>(n));
        eltwise_forward::primitive_desc fwd({prop_kind::forward_training, relu, data, 0.f, 0.f},
                                            engine);
        eltwise_backward::primitive_desc bwd({relu, data, data, 0.f, 0.f}, engine, fwd);
        return {
            make_step(eltwise_forward(fwd), engine, {{DNNL_ARG_SRC, data}, {DNNL_ARG_DST, data}}),
            make_step(eltwise_backward(bwd), engine,
                      {{DNNL_ARG_DST, data}, {DNNL_ARG_DIFF_DST, data}, {DNNL_ARG_DIFF_SRC, data}}),
        };
    }
};

OneDnnBackend::OneDnnBackend() : impl_(std::make_unique<Impl>()) {}
OneDnnBackend::~OneDnnBackend() = default;

DeviceBuffer OneDnnBackend::allocate(std::size_t floats) {
    // 64-byte alignment: whole cache lines and AVX-512 vectors for oneDNN.
    const std::size_t bytes = std::max<std::size_t>(64, (floats * sizeof(float) + 63) / 64 * 64);
    auto* data = static_cast<float*>(std::aligned_alloc(64, bytes));
    if (!data) throw std::bad_alloc();
    return DeviceBuffer(data, [](float* p) { std::free(p); });
}

void OneDnnBackend::upload(const float* host, float* device, std::size_t floats) {
    std::memcpy(device, host, floats * sizeof(float));
}

void OneDnnBackend::download(const float* device, float* host, std::size_t floats) {
    std::memcpy(host, device, floats * sizeof(float));
}

void OneDnnBackend::upload_labels(const std::int32_t* host, float* device, std::size_t count) {
    std::transform(host, host + count, device, [](std::int32_t label) { return float(label); });
}

void OneDnnBackend::fill(float* device, std::size_t floats, float value) {
    std::fill(device, device + floats, value);
}

void OneDnnBackend::conv2d_forward(const Conv2dShape& s, const float* x, const float* w,
                                   const float* b, float* y) {
    auto& plan = impl_->conv_plans.get(s, [&](const auto& k) { return impl_->build_conv(k); });
    plan.forward.run(impl_->stream,
                     {{DNNL_ARG_SRC, x}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_BIAS, b}, {DNNL_ARG_DST, y}});
}

void OneDnnBackend::conv2d_backward_data(const Conv2dShape& s, const float* dy, const float* w,
                                         float* dx) {
    auto& plan = impl_->conv_plans.get(s, [&](const auto& k) { return impl_->build_conv(k); });
    plan.backward_data.run(impl_->stream,
                           {{DNNL_ARG_DIFF_DST, dy}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DIFF_SRC, dx}});
}

void OneDnnBackend::conv2d_backward_weights(const Conv2dShape& s, const float* x,
                                            const float* dy, float* dw, float* db) {
    auto& plan = impl_->conv_plans.get(s, [&](const auto& k) { return impl_->build_conv(k); });
    plan.backward_weights.run(impl_->stream, {{DNNL_ARG_SRC, x},
                                              {DNNL_ARG_DIFF_DST, dy},
                                              {DNNL_ARG_DIFF_WEIGHTS, dw},
                                              {DNNL_ARG_DIFF_BIAS, db}});
}

void OneDnnBackend::relu_forward(std::size_t n, const float* x, float* y) {
    auto& plan = impl_->relu_plans.get(n, [&](auto k) { return impl_->build_relu(k); });
    plan.forward.run(impl_->stream, {{DNNL_ARG_SRC, x}, {DNNL_ARG_DST, y}});
}

void OneDnnBackend::relu_backward(std::size_t n, const float* y, const float* dy, float* dx) {
    auto& plan = impl_->relu_plans.get(n, [&](auto k) { return impl_->build_relu(k); });
    plan.backward.run(impl_->stream,
                      {{DNNL_ARG_DST, y}, {DNNL_ARG_DIFF_DST, dy}, {DNNL_ARG_DIFF_SRC, dx}});
}

void OneDnnBackend::avg_pool2d_forward(const Pool2dShape& s, const float* x, float* y) {
    auto& plan = impl_->pool_plans.get(s, [&](const auto& k) { return impl_->build_pool(k); });
    plan.forward.run(impl_->stream, {{DNNL_ARG_SRC, x}, {DNNL_ARG_DST, y}});
}

void OneDnnBackend::avg_pool2d_backward(const Pool2dShape& s, const float* dy, float* dx) {
    auto& plan = impl_->pool_plans.get(s, [&](const auto& k) { return impl_->build_pool(k); });
    plan.backward.run(impl_->stream, {{DNNL_ARG_DIFF_DST, dy}, {DNNL_ARG_DIFF_SRC, dx}});
}

void OneDnnBackend::linear_forward(const LinearShape& s, const float* x, const float* w,
                                   const float* b, float* y) {
    auto& plan = impl_->linear_plans.get(s, [&](const auto& k) { return impl_->build_linear(k); });
    plan.forward.run(impl_->stream,
                     {{DNNL_ARG_SRC, x}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_BIAS, b}, {DNNL_ARG_DST, y}});
}

void OneDnnBackend::linear_backward_data(const LinearShape& s, const float* dy, const float* w,
                                         float* dx) {
    auto& plan = impl_->linear_plans.get(s, [&](const auto& k) { return impl_->build_linear(k); });
    plan.backward_data.run(impl_->stream,
                           {{DNNL_ARG_DIFF_DST, dy}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DIFF_SRC, dx}});
}

void OneDnnBackend::linear_backward_weights(const LinearShape& s, const float* x,
                                            const float* dy, float* dw, float* db) {
    auto& plan = impl_->linear_plans.get(s, [&](const auto& k) { return impl_->build_linear(k); });
    plan.backward_weights.run(impl_->stream, {{DNNL_ARG_SRC, x},
                                              {DNNL_ARG_DIFF_DST, dy},
                                              {DNNL_ARG_DIFF_WEIGHTS, dw},
                                              {DNNL_ARG_DIFF_BIAS, db}});
}

Backend::LossResult OneDnnBackend::softmax_cross_entropy(int batch, int classes,
                                                         const float* logits, const float* labels,
                                                         float* dlogits, float grad_scale) {
    // A few thousand floats a batch: the reference loop is as fast as any
    // primitive call, and oneDNN has no fused loss with this contract.
    return reference::softmax_cross_entropy(batch, classes, logits, labels, dlogits, grad_scale);
}

void OneDnnBackend::sgd_update(std::size_t n, float lr, float* param, const float* grad) {
#pragma omp parallel for simd schedule(static)
    for (std::size_t i = 0; i < n; ++i) param[i] -= lr * grad[i];
}

void OneDnnBackend::synchronize() { impl_->stream.wait(); }

}  // namespace dp
