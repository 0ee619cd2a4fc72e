// OneDnnBackend's elementwise ops: relu on oneDNN's eltwise primitive;
// add, scale, SGD and dropout's backward as OpenMP loops; dropout's forward
// the host kernels' counter-based masks.

#include "backend/host/host_kernels.h"
#include "backend/onednn/onednn_impl.h"

namespace dp {

using namespace onednn;

ReluPlan OneDnnBackend::Impl::build_relu(std::size_t n) {
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

ReluPlan& OneDnnBackend::Impl::relu(std::size_t n) {
    return relu_plans.get(n, [&](auto k) { return build_relu(k); });
}

void OneDnnBackend::relu_forward(std::size_t n, const float* x, float* y) {
    impl_->relu(n).forward.run(impl_->stream, {{DNNL_ARG_SRC, x}, {DNNL_ARG_DST, y}});
}

void OneDnnBackend::relu_backward(std::size_t n, const float* y, const float* dy, float* dx) {
    impl_->relu(n).backward.run(impl_->stream,
                                {{DNNL_ARG_DST, y}, {DNNL_ARG_DIFF_DST, dy}, {DNNL_ARG_DIFF_SRC, dx}});
}

// Memory-bound elementwise loops: as fast as a oneDNN binary primitive, and
// one loop serves any size and in-place use.
void OneDnnBackend::add(std::size_t n, const float* a, const float* b, float* y) {
#pragma omp parallel for simd schedule(static)
    for (std::size_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
}

void OneDnnBackend::scale(std::size_t n, float factor, float* x) {
#pragma omp parallel for simd schedule(static)
    for (std::size_t i = 0; i < n; ++i) x[i] *= factor;
}

void OneDnnBackend::sgd_update(std::size_t n, float lr, float* param, const float* grad) {
#pragma omp parallel for simd schedule(static)
    for (std::size_t i = 0; i < n; ++i) param[i] -= lr * grad[i];
}

// The masks of the host kernels' counter-based draws, which any thread can
// make for any unit: the masks that Backend's DropoutConfig defines.
void OneDnnBackend::dropout_forward(std::size_t n, const DropoutConfig& config, const float* x,
                                    float* y, float* mask) {
    host::dropout_forward(n, config, x, y, mask);
}

void OneDnnBackend::dropout2d_forward(const NchwShape& s, const DropoutConfig& config,
                                      const float* x, float* y, float* mask) {
    host::dropout2d_forward(s, config, x, y, mask);
}

void OneDnnBackend::dropout_backward(std::size_t n, const float* mask, const float* dy,
                                     float* dx) {
#pragma omp parallel for simd schedule(static)
    for (std::size_t i = 0; i < n; ++i) dx[i] = dy[i] * mask[i];
}

}  // namespace dp
