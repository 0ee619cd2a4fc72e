// OneDnnBackend's batch normalization: the normalization and the training
// backward are oneDNN primitives; the statistics, the running statistics and
// the ops of synchronized batch normalization are host loops
// (backend/host/host_kernels.h), the channels in parallel.

#include "backend/host/host_kernels.h"
#include "backend/onednn/onednn_impl.h"

namespace dp {

using namespace onednn;

// Scale (gamma) and shift (beta) as separate C-vectors; the statistics
// are inputs (computed by batch_norm2d_forward_training). The backward's
// descriptor needs a training forward's as its hint.
BatchNormPlan OneDnnBackend::Impl::build_batch_norm(const BatchNorm2dShape& s) {
    using namespace dnnl;
    auto data = nchw(s.batch, s.channels, s.h, s.w);
    auto channel = vec(s.channels);
    const auto affine = normalization_flags::use_scale | normalization_flags::use_shift;
    batch_normalization_forward::primitive_desc training(
        {prop_kind::forward_training, data, s.eps, affine}, engine);
    batch_normalization_forward::primitive_desc given_stats(
        {prop_kind::forward_training, data, s.eps, affine | normalization_flags::use_global_stats},
        engine);
    batch_normalization_backward::primitive_desc bwd({prop_kind::backward, data, data, s.eps, affine},
                                                     engine, training);
    Step backward = make_step(
        batch_normalization_backward(bwd), engine,
        {{DNNL_ARG_SRC, data}, {DNNL_ARG_MEAN, channel}, {DNNL_ARG_VARIANCE, channel},
         {DNNL_ARG_DIFF_DST, data}, {DNNL_ARG_SCALE, channel}, {DNNL_ARG_DIFF_SRC, data},
         {DNNL_ARG_DIFF_SCALE, channel}, {DNNL_ARG_DIFF_SHIFT, channel}});
    // oneDNN 2.6 fails the backward unless the shift is bound too, though
    // no gradient depends on it: a buffer of its own, never read.
    backward.bind_owned(DNNL_ARG_SHIFT, channel, engine);
    return {
        make_step(batch_normalization_forward(given_stats), engine,
                  {{DNNL_ARG_SRC, data}, {DNNL_ARG_MEAN, channel}, {DNNL_ARG_VARIANCE, channel},
                   {DNNL_ARG_SCALE, channel}, {DNNL_ARG_SHIFT, channel}, {DNNL_ARG_DST, data}}),
        std::move(backward),
    };
}

BatchNormPlan& OneDnnBackend::Impl::batch_norm(const BatchNorm2dShape& s) {
    return batch_norm_plans.get(s, [&](const auto& k) { return build_batch_norm(k); });
}

void OneDnnBackend::batch_norm2d_forward_training(const BatchNorm2dShape& s, const float* x,
                                                  const float* gamma, const float* beta,
                                                  float* y, float* mean, float* var,
                                                  float* running_mean, float* running_var) {
    // oneDNN 2.6's own statistics drift on channels whose variance is tiny next
    // to their mean (1% gradient errors in ResNet-18's golden test): the
    // statistics come from the two-pass host loop, the normalization from oneDNN.
    host::batch_norm2d_statistics(s, x, mean, var);
    batch_norm2d_forward_given_stats(s, x, gamma, beta, mean, var, y);
    host::update_running_stats(s, host::batch_norm2d_count(s), mean, var, running_mean,
                               running_var);
}

void OneDnnBackend::batch_norm2d_forward_given_stats(const BatchNorm2dShape& s, const float* x,
                                                     const float* gamma, const float* beta,
                                                     const float* mean, const float* var,
                                                     float* y) {
    impl_->batch_norm(s).forward_given_stats.run(
        impl_->stream, {{DNNL_ARG_SRC, x}, {DNNL_ARG_MEAN, mean}, {DNNL_ARG_VARIANCE, var},
                        {DNNL_ARG_SCALE, gamma}, {DNNL_ARG_SHIFT, beta}, {DNNL_ARG_DST, y}});
}

void OneDnnBackend::batch_norm2d_backward(const BatchNorm2dShape& s, const float* x,
                                          const float* dy, const float* gamma, const float* mean,
                                          const float* var, float* dx, float* dgamma,
                                          float* dbeta) {
    impl_->batch_norm(s).backward.run(
        impl_->stream, {{DNNL_ARG_SRC, x}, {DNNL_ARG_MEAN, mean}, {DNNL_ARG_VARIANCE, var},
                        {DNNL_ARG_DIFF_DST, dy}, {DNNL_ARG_SCALE, gamma}, {DNNL_ARG_DIFF_SRC, dx},
                        {DNNL_ARG_DIFF_SCALE, dgamma}, {DNNL_ARG_DIFF_SHIFT, dbeta}});
}

// The synchronized batch normalization ops have no oneDNN primitive (its
// backward takes only local reductions): the host kernels'.
void OneDnnBackend::batch_norm2d_sums(const BatchNorm2dShape& s, const float* x,
                                      const float* shift, float* sum, float* sum_sq) {
    host::batch_norm2d_sums(s, x, shift, sum, sum_sq);
}

void OneDnnBackend::batch_norm2d_stats_from_sums(const BatchNorm2dShape& s, std::int64_t count,
                                                 const float* sum, const float* sum_sq,
                                                 const float* shift, float* mean, float* var,
                                                 float* running_mean, float* running_var) {
    host::batch_norm2d_stats_from_sums(s, count, sum, sum_sq, shift, mean, var, running_mean,
                                       running_var);
}

void OneDnnBackend::batch_norm2d_backward_reduce(const BatchNorm2dShape& s, const float* x,
                                                 const float* dy, const float* mean,
                                                 const float* var, float* dgamma, float* dbeta) {
    host::batch_norm2d_backward_reduce(s, x, dy, mean, var, dgamma, dbeta);
}

void OneDnnBackend::batch_norm2d_backward_elementwise(const BatchNorm2dShape& s,
                                                      std::int64_t count, const float* x,
                                                      const float* dy, const float* gamma,
                                                      const float* mean, const float* var,
                                                      const float* dgamma, const float* dbeta,
                                                      float* dx) {
    host::batch_norm2d_backward_elementwise(s, count, x, dy, gamma, mean, var, dgamma, dbeta, dx);
}

}  // namespace dp
