// OneDnnBackend's linear layer: oneDNN's inner product, and the bias
// gradient summed on the host.

#include "backend/host/host_kernels.h"
#include "backend/onednn/onednn_impl.h"

namespace dp {

using namespace onednn;

LinearPlan OneDnnBackend::Impl::build_linear(const LinearShape& s) {
    using namespace dnnl;
    const memory::dims src_dims{s.batch, s.in_features}, dst_dims{s.batch, s.out_features},
        weights_dims{s.out_features, s.in_features};
    // The caller's float buffers, and the same layouts with the inputs in
    // the compute type (bf16 rounds them as they are reordered in); outputs
    // and gradients stay f32.
    const memory::desc src(src_dims, f32, tag::nc), dst(dst_dims, f32, tag::nc),
        weights(weights_dims, f32, tag::oi), bias = vec(s.out_features);
    const memory::data_type in = compute_type();
    const memory::desc want_src(src_dims, in, tag::nc), want_weights(weights_dims, in, tag::oi),
        want_diff_dst(dst_dims, in, tag::nc);
    inner_product_forward::primitive_desc fwd(
        {prop_kind::forward_training, want_src, want_weights, bias, dst}, engine);
    inner_product_backward_data::primitive_desc bwd_data({src, want_weights, want_diff_dst},
                                                         engine, fwd);
    // Without the bias: linear_backward_weights sums it in double.
    inner_product_backward_weights::primitive_desc bwd_weights({want_src, weights, want_diff_dst},
                                                               engine, fwd);
    LinearPlan plan{inner_product_forward(fwd), inner_product_backward_data(bwd_data),
                    inner_product_backward_weights(bwd_weights)};
    plan.forward.bind_converted(DNNL_ARG_SRC, src, want_src, false, engine);
    plan.forward.bind_converted(DNNL_ARG_WEIGHTS, weights, want_weights, false, engine);
    plan.forward.bind(DNNL_ARG_BIAS, bias, engine);
    plan.forward.bind(DNNL_ARG_DST, dst, engine);
    plan.backward_data.bind_converted(DNNL_ARG_DIFF_DST, dst, want_diff_dst, false, engine);
    plan.backward_data.bind_converted(DNNL_ARG_WEIGHTS, weights, want_weights, false, engine);
    plan.backward_data.bind(DNNL_ARG_DIFF_SRC, src, engine);
    plan.backward_weights.bind_converted(DNNL_ARG_SRC, src, want_src, false, engine);
    plan.backward_weights.bind_converted(DNNL_ARG_DIFF_DST, dst, want_diff_dst, false, engine);
    plan.backward_weights.bind(DNNL_ARG_DIFF_WEIGHTS, weights, engine);
    for (const Step* step : {&plan.forward, &plan.backward_data, &plan.backward_weights})
        reserve_scratch(step->scratch_bytes);
    return plan;
}

LinearPlan& OneDnnBackend::Impl::linear(const LinearShape& s) {
    return linear_plans.get(s, [&](const auto& k) { return build_linear(k); });
}

void OneDnnBackend::linear_forward(const LinearShape& s, const float* x, const float* w,
                                   const float* b, float* y) {
    impl_->linear(s).forward.run(
        impl_->stream,
        {{DNNL_ARG_SRC, x}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_BIAS, b}, {DNNL_ARG_DST, y}},
        impl_->scratch.get());
}

void OneDnnBackend::linear_backward_data(const LinearShape& s, const float* dy, const float* w,
                                         float* dx) {
    impl_->linear(s).backward_data.run(
        impl_->stream, {{DNNL_ARG_DIFF_DST, dy}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DIFF_SRC, dx}},
        impl_->scratch.get());
}

void OneDnnBackend::linear_backward_weights(const LinearShape& s, const float* x,
                                            const float* dy, float* dw, float* db) {
    impl_->linear(s).backward_weights.run(
        impl_->stream, {{DNNL_ARG_SRC, x}, {DNNL_ARG_DIFF_DST, dy}, {DNNL_ARG_DIFF_WEIGHTS, dw}},
        impl_->scratch.get());
    host::linear_bias_backward(s, dy, db);
}

}  // namespace dp
