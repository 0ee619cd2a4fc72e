// OneDnnBackend's pooling: average, max and global average pooling on
// oneDNN primitives; ReLU fused before average pooling on host loops.

#include "backend/host/host_kernels.h"
#include "backend/onednn/onednn_impl.h"

namespace dp {

using namespace onednn;

// Pooling of NCHW src to dst with the given window; the workspace of
// max pooling is bound to both steps, its data handle the caller's.
PoolPlan OneDnnBackend::Impl::build_pooling(dnnl::algorithm algorithm, const memory::desc& src,
                                            const memory::desc& dst, const memory::dims& kernel,
                                            const memory::dims& strides,
                                            const memory::dims& padding) {
    using namespace dnnl;
    pooling_forward::primitive_desc fwd(
        {prop_kind::forward_training, algorithm, src, dst, strides, kernel, padding, padding},
        engine);
    pooling_backward::primitive_desc bwd({algorithm, src, dst, strides, kernel, padding, padding},
                                         engine, fwd);
    PoolPlan plan{
        make_step(pooling_forward(fwd), engine, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}),
        make_step(pooling_backward(bwd), engine,
                  {{DNNL_ARG_DIFF_DST, dst}, {DNNL_ARG_DIFF_SRC, src}}),
    };
    const memory::desc workspace = fwd.workspace_desc();
    if (!workspace.is_zero()) {
        plan.forward.bind(DNNL_ARG_WORKSPACE, workspace, engine);
        plan.backward.bind(DNNL_ARG_WORKSPACE, workspace, engine);
        plan.workspace_bytes = workspace.get_size();
    }
    return plan;
}

PoolPlan OneDnnBackend::Impl::build_pool(const Pool2dShape& s, dnnl::algorithm algorithm) {
    host::check_pool2d_shape(s);
    return build_pooling(algorithm, nchw(s.batch, s.channels, s.in_h, s.in_w),
                         nchw(s.batch, s.channels, s.out_h(), s.out_w()), {s.kernel, s.kernel},
                         {s.stride, s.stride}, {s.pad, s.pad});
}

// One window covering each whole plane.
PoolPlan OneDnnBackend::Impl::build_global_pool(const NchwShape& s) {
    return build_pooling(dnnl::algorithm::pooling_avg_include_padding,
                         nchw(s.batch, s.channels, s.h, s.w), nchw(s.batch, s.channels, 1, 1),
                         {s.h, s.w}, {s.h, s.w}, {0, 0});
}

PoolPlan& OneDnnBackend::Impl::avg_pool(const Pool2dShape& s) {
    return pool_plans.get(s, [&](const auto& k) {
        return build_pool(k, dnnl::algorithm::pooling_avg_include_padding);
    });
}

PoolPlan& OneDnnBackend::Impl::max_pool(const Pool2dShape& s) {
    return max_pool_plans.get(
        s, [&](const auto& k) { return build_pool(k, dnnl::algorithm::pooling_max); });
}

PoolPlan& OneDnnBackend::Impl::global_pool(const NchwShape& s) {
    return global_pool_plans.get(s, [&](const auto& k) { return build_global_pool(k); });
}

void OneDnnBackend::avg_pool2d_forward(const Pool2dShape& s, const float* x, float* y) {
    impl_->avg_pool(s).forward.run(impl_->stream, {{DNNL_ARG_SRC, x}, {DNNL_ARG_DST, y}});
}

void OneDnnBackend::avg_pool2d_backward(const Pool2dShape& s, const float* dy, float* dx) {
    impl_->avg_pool(s).backward.run(impl_->stream,
                                    {{DNNL_ARG_DIFF_DST, dy}, {DNNL_ARG_DIFF_SRC, dx}});
}

// oneDNN's pooling has no ReLU before it (post-ops come after): host loops.
void OneDnnBackend::relu_avg_pool2d_forward(const Pool2dShape& s, const float* x, float* y) {
    host::relu_avg_pool2d_forward(s, x, y);
}

void OneDnnBackend::relu_avg_pool2d_backward(const Pool2dShape& s, const float* x,
                                             const float* dy, float* dx) {
    host::relu_avg_pool2d_backward(s, x, dy, dx);
}

std::size_t OneDnnBackend::max_pool2d_workspace_size(const Pool2dShape& s) {
    return impl_->max_pool(s).workspace_bytes;
}

void OneDnnBackend::max_pool2d_forward(const Pool2dShape& s, const float* x, float* y,
                                       void* workspace) {
    impl_->max_pool(s).forward.run(
        impl_->stream, {{DNNL_ARG_SRC, x}, {DNNL_ARG_DST, y}, {DNNL_ARG_WORKSPACE, workspace}});
}

void OneDnnBackend::max_pool2d_backward(const Pool2dShape& s, const float* dy,
                                        const void* workspace, float* dx) {
    impl_->max_pool(s).backward.run(impl_->stream, {{DNNL_ARG_DIFF_DST, dy},
                                                    {DNNL_ARG_WORKSPACE, workspace},
                                                    {DNNL_ARG_DIFF_SRC, dx}});
}

void OneDnnBackend::global_avg_pool2d_forward(const NchwShape& s, const float* x, float* y) {
    impl_->global_pool(s).forward.run(impl_->stream, {{DNNL_ARG_SRC, x}, {DNNL_ARG_DST, y}});
}

void OneDnnBackend::global_avg_pool2d_backward(const NchwShape& s, const float* dy, float* dx) {
    impl_->global_pool(s).backward.run(impl_->stream,
                                       {{DNNL_ARG_DIFF_DST, dy}, {DNNL_ARG_DIFF_SRC, dx}});
}

}  // namespace dp
