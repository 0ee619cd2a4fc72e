// OneDnnBackend's linear layer: oneDNN's inner product, and the bias
// gradient summed on the host.

#include "backend/host/host_kernels.h"
#include "backend/onednn/onednn_impl.h"

namespace dp {

using namespace onednn;

LinearPlan OneDnnBackend::Impl::build_linear(const LinearShape& s) {
    using namespace dnnl;
    memory::desc src({s.batch, s.in_features}, f32, tag::nc);
    memory::desc dst({s.batch, s.out_features}, f32, tag::nc);
    memory::desc weights({s.out_features, s.in_features}, f32, tag::oi);
    auto bias = vec(s.out_features);
    inner_product_forward::primitive_desc fwd(
        {prop_kind::forward_training, src, weights, bias, dst}, engine);
    inner_product_backward_data::primitive_desc bwd_data({src, weights, dst}, engine, fwd);
    // Without the bias: linear_backward_weights sums it in double.
    inner_product_backward_weights::primitive_desc bwd_weights({src, weights, dst}, engine, fwd);
    return {
        make_step(inner_product_forward(fwd), engine,
                  {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_BIAS, bias},
                   {DNNL_ARG_DST, dst}}),
        make_step(inner_product_backward_data(bwd_data), engine,
                  {{DNNL_ARG_DIFF_DST, dst}, {DNNL_ARG_WEIGHTS, weights},
                   {DNNL_ARG_DIFF_SRC, src}}),
        make_step(inner_product_backward_weights(bwd_weights), engine,
                  {{DNNL_ARG_SRC, src}, {DNNL_ARG_DIFF_DST, dst},
                   {DNNL_ARG_DIFF_WEIGHTS, weights}}),
    };
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
        impl_->stream, {{DNNL_ARG_SRC, x}, {DNNL_ARG_DIFF_DST, dy}, {DNNL_ARG_DIFF_WEIGHTS, dw}});
    host::linear_bias_backward(s, dy, db);
}

}  // namespace dp
