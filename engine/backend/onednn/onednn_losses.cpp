// OneDnnBackend's log softmax (oneDNN's primitive) and classification
// losses (host loops: a few thousand floats a batch, for which a loop is as
// fast as any primitive call, and oneDNN has no fused loss with this contract).

#include "backend/host/host_kernels.h"
#include "backend/onednn/onednn_impl.h"

namespace dp {

using namespace onednn;

LogSoftmaxPlan OneDnnBackend::Impl::build_log_softmax(std::pair<int, int> rows) {
    using namespace dnnl;
    memory::desc data({rows.first, rows.second}, f32, tag::nc);
    logsoftmax_forward::primitive_desc fwd({prop_kind::forward_training, data, 1}, engine);
    logsoftmax_backward::primitive_desc bwd({data, data, 1}, engine, fwd);
    return {
        make_step(logsoftmax_forward(fwd), engine, {{DNNL_ARG_SRC, data}, {DNNL_ARG_DST, data}}),
        make_step(logsoftmax_backward(bwd), engine,
                  {{DNNL_ARG_DST, data}, {DNNL_ARG_DIFF_DST, data}, {DNNL_ARG_DIFF_SRC, data}}),
    };
}

LogSoftmaxPlan& OneDnnBackend::Impl::log_softmax(int batch, int classes) {
    return log_softmax_plans.get({batch, classes}, [&](auto k) { return build_log_softmax(k); });
}

void OneDnnBackend::log_softmax_forward(int batch, int classes, const float* x, float* y) {
    impl_->log_softmax(batch, classes).forward.run(impl_->stream,
                                                   {{DNNL_ARG_SRC, x}, {DNNL_ARG_DST, y}});
}

void OneDnnBackend::log_softmax_backward(int batch, int classes, const float* y, const float* dy,
                                         float* dx) {
    impl_->log_softmax(batch, classes).backward.run(
        impl_->stream, {{DNNL_ARG_DST, y}, {DNNL_ARG_DIFF_DST, dy}, {DNNL_ARG_DIFF_SRC, dx}});
}

Backend::LossResult OneDnnBackend::softmax_cross_entropy(int batch, int classes,
                                                         const float* logits, const float* labels,
                                                         float* dlogits, float grad_scale) {
    return host::softmax_cross_entropy(batch, classes, logits, labels, dlogits, grad_scale);
}

Backend::LossResult OneDnnBackend::nll_loss(int batch, int classes, const float* log_probs,
                                            const float* labels, float* dlog_probs,
                                            float grad_scale) {
    return host::nll_loss(batch, classes, log_probs, labels, dlog_probs, grad_scale);
}

}  // namespace dp
