// OneDnnBackend's convolutions: oneDNN's primitives with the kernel (layout
// and algorithm) this machine's kernel cache names for each op and shape, and
// the bias gradient summed on the host.

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/conv_accuracy.h"
#include "backend/host/host_kernels.h"
#include "backend/kernel_choices.h"
#include "backend/onednn/onednn_impl.h"
#include "core/cpu_model.h"
#include "core/format.h"

namespace dp {

using namespace onednn;

namespace {

// The kernels a convolution can run: direct convolution on the caller's NCHW
// (oneDNN's gemm kernels), on the blocked layout oneDNN picks (format "any":
// its jit kernels) or on NHWC (its brgemm kernels), and, for 3x3 windows
// with stride 1 in float32, Winograd's F(4x4, 3x3) on the blocked layout
// (oneDNN's jit_wino_4x3, AVX-512 only), the caller's buffers reordered in
// and out for all but the first. Which is fastest depends on the channel
// counts and on the op, up to 2x apart here reorders included
// (bench/README.md), so each op measures them on its first call with a
// shape, as cuDNN's algorithm search does, and keeps the fastest.
//
// Winograd multiplies 2.25x fewer times than direct convolution, through
// transforms that round coarser than direct summation, as cuDNN's Winograd
// algorithms do on GPUs: chosen by timing alone on a Zen 5 CPU, it left two
// ResNet-18 steps 7.7x further from float64 than PyTorch's fp32. So each
// candidate's output is also compared with float64 on the shape's first
// call (conv_accuracy.h), and fp32 takes only kernels within its bound;
// fp32-fast takes the fastest.
constexpr ConvKernel kConvKernels[] = {ConvKernel::nchw, ConvKernel::blocked, ConvKernel::nhwc,
                                       ConvKernel::winograd};
// Best of three per kernel: one timing let a burst of noise pick the kernel.
constexpr int kTimingsPerCandidate = 3;

// Without measuring (DP_KERNEL_TUNING=fixed): the direct jit kernels on the
// blocked layout for windows, gemm on NCHW for 1x1 (oneDNN's own heuristics'
// usual pick).
ConvKernel fixed_conv_kernel(const Conv2dShape& s) {
    return s.kernel > 1 ? ConvKernel::blocked : ConvKernel::nchw;
}

std::string isa_name(dnnl::cpu_isa isa) {
    switch (isa) {
    case dnnl::cpu_isa::sse41: return "sse41";
    case dnnl::cpu_isa::avx: return "avx";
    case dnnl::cpu_isa::avx2: return "avx2";
    case dnnl::cpu_isa::avx2_vnni: return "avx2_vnni";
    case dnnl::cpu_isa::avx512_core: return "avx512_core";
    case dnnl::cpu_isa::avx512_core_vnni: return "avx512_core_vnni";
    case dnnl::cpu_isa::avx512_core_bf16: return "avx512_core_bf16";
    case dnnl::cpu_isa::avx512_core_amx: return "avx512_core_amx";
    default: return format("isa 0x%x", unsigned(isa));
    }
}

// oneDNN's jit 1x1 backward-weights kernels (f32 jit_1x1 and bf16
// jit_bf16_1x1; oneDNN 2.6.3 here, issue #6035 upstream) on NHWC with a stride
// compact the strided input into a workspace per thread at 16 floats a pixel
// (AVX-512's channel block; AVX2's is 8) where NHWC holds only in_channels:
// with fewer channels than the block they write past the workspace into the
// heap (ResNet-18/8's 8-channel shortcut at 48x48 and up: "malloc(): invalid
// size", a double free) and, where the overflow stays inside the scratchpad's
// slack, compute from the wrong pixels. Never a candidate there; channel
// counts that are multiples of 16 (every other shape of the models) run inside it.
bool onednn_1x1_nhwc_weights_overflow(const Conv2dShape& s, ConvOp op, ConvKernel kernel) {
    return op == ConvOp::backward_weights && kernel == ConvKernel::nhwc && s.kernel == 1 &&
           s.stride > 1 && s.in_channels % 16 != 0;
}

const char* conv_kernel_name(ConvKernel kernel) {
    switch (kernel) {
    case ConvKernel::nchw: return "nchw";
    case ConvKernel::blocked: return "blocked";
    case ConvKernel::nhwc: return "nhwc";
    case ConvKernel::winograd: return "winograd";
    }
    return "?";
}

// The caller's buffer of `arg` among a call's handles (null when absent).
const float* handle(Handles handles, int arg) {
    for (const auto& [each, pointer] : handles)
        if (each == arg) return static_cast<const float*>(pointer);
    return nullptr;
}

int conv_output_arg(ConvOp op) {
    return op == ConvOp::forward         ? DNNL_ARG_DST
           : op == ConvOp::backward_data ? DNNL_ARG_DIFF_SRC
                                         : DNNL_ARG_DIFF_WEIGHTS;
}

// The float64 reference of `op` on the call's inputs (host memory on a CPU).
ConvReference conv_reference(const Conv2dShape& s, ConvOp op, Handles handles) {
    switch (op) {
    case ConvOp::forward:
        return {s, ConvPass::forward, handle(handles, DNNL_ARG_SRC),
                handle(handles, DNNL_ARG_WEIGHTS), handle(handles, DNNL_ARG_BIAS)};
    case ConvOp::backward_data:
        return {s, ConvPass::backward_data, handle(handles, DNNL_ARG_DIFF_DST),
                handle(handles, DNNL_ARG_WEIGHTS)};
    case ConvOp::backward_weights:
        return {s, ConvPass::backward_weights, handle(handles, DNNL_ARG_SRC),
                handle(handles, DNNL_ARG_DIFF_DST)};
    }
    throw std::logic_error("unknown convolution op");
}

// Whether oneDNN implements the step's primitive with its reference loops
// ("ref:any"), not a jit, gemm or brgemm kernel.
bool is_reference_kernel(const Step& step) {
    const char* name = nullptr;
    dnnl_primitive_desc_query(step.primitive.get_primitive_desc(), dnnl_query_impl_info_str, 0,
                              &name);
    return name && std::string(name).starts_with("ref");
}

}  // namespace

bool OneDnnBackend::Impl::winograd_candidate(const Conv2dShape& s) const {
    return s.kernel == 3 && s.stride == 1 &&
           (precision == Precision::fp32 || precision == Precision::fp32_fast);
}

Step OneDnnBackend::Impl::build_conv_step(const Conv2dShape& s, ConvOp op, ConvKernel kernel) {
    using namespace dnnl;
    const memory::dims src_dims{s.batch, s.in_channels, s.in_h, s.in_w};
    const memory::dims dst_dims{s.batch, s.out_channels, s.out_h(), s.out_w()};
    const memory::dims weights_dims{s.out_channels, s.in_channels, s.kernel, s.kernel};
    const memory::dims strides{s.stride, s.stride}, padding{s.pad, s.pad};
    // The caller's layouts, and those the primitive is asked to use.
    const memory::desc src(src_dims, f32, tag::nchw), dst(dst_dims, f32, tag::nchw),
        weights(weights_dims, f32, tag::oihw), bias = vec(s.out_channels);
    const tag activations = kernel == ConvKernel::nchw   ? tag::nchw
                            : kernel == ConvKernel::nhwc ? tag::nhwc
                                                         : tag::any;
    const tag weights_tag = kernel == ConvKernel::nchw ? tag::oihw : tag::any;
    const algorithm direct_or_winograd = kernel == ConvKernel::winograd
                                             ? algorithm::convolution_winograd
                                             : algorithm::convolution_direct;
    // Each pass's inputs in the compute type (bf16 rounds them as they are
    // reordered in), its output in f32: the forward's activations, the
    // backward's gradients and the weight gradients stay float32.
    const memory::data_type in = compute_type();
    const memory::desc want_src(src_dims, in, activations),
        want_weights(weights_dims, in, weights_tag), want_dst(dst_dims, f32, activations),
        want_diff_dst(dst_dims, in, activations), want_diff_src(src_dims, f32, activations),
        want_diff_weights(weights_dims, f32, weights_tag);
    // The forward's descriptor is every backward's hint.
    const convolution_forward::primitive_desc fwd(
        {prop_kind::forward_training, direct_or_winograd, want_src, want_weights,
         bias, want_dst, strides, padding, padding},
        engine);
    switch (op) {
    case ConvOp::forward: {
        Step step(convolution_forward{fwd});
        step.bind_converted(DNNL_ARG_SRC, src, fwd.src_desc(), false, engine);
        step.bind_converted(DNNL_ARG_WEIGHTS, weights, fwd.weights_desc(), false, engine);
        step.bind(DNNL_ARG_BIAS, bias, engine);
        step.bind_converted(DNNL_ARG_DST, dst, fwd.dst_desc(), true, engine);
        return step;
    }
    case ConvOp::backward_data: {
        const convolution_backward_data::primitive_desc pd(
            {direct_or_winograd, want_diff_src, want_weights, want_diff_dst, strides,
             padding, padding},
            engine, fwd);
        Step step(convolution_backward_data{pd});
        step.bind_converted(DNNL_ARG_DIFF_DST, dst, pd.diff_dst_desc(), false, engine);
        step.bind_converted(DNNL_ARG_WEIGHTS, weights, pd.weights_desc(), false, engine);
        step.bind_converted(DNNL_ARG_DIFF_SRC, src, pd.diff_src_desc(), true, engine);
        return step;
    }
    case ConvOp::backward_weights: {
        // Without the bias: conv2d_backward_weights sums it on the host.
        const convolution_backward_weights::primitive_desc pd(
            {direct_or_winograd, want_src, want_diff_weights, want_diff_dst, strides,
             padding, padding},
            engine, fwd);
        Step step(convolution_backward_weights{pd});
        step.bind_converted(DNNL_ARG_SRC, src, pd.src_desc(), false, engine);
        step.bind_converted(DNNL_ARG_DIFF_DST, dst, pd.diff_dst_desc(), false, engine);
        step.bind_converted(DNNL_ARG_DIFF_WEIGHTS, weights, pd.diff_weights_desc(), true,
                            engine);
        return step;
    }
    }
    throw std::logic_error("unknown convolution op");
}

// The step of `op` for shape `s`: the kernel this machine's kernel cache
// names for it, measured here on its first use (each candidate runs on the
// caller's buffers and overwrites the outputs, which are compared with a
// float64 sample of the same pass; the caller then runs the chosen one). Only the chosen kernel's primitive is kept. A cached choice
// this oneDNN cannot build falls back to the fixed rule's kernel.
Step& OneDnnBackend::Impl::conv_step(const Conv2dShape& s, ConvOp op, Handles handles) {
    std::optional<Step>& chosen =
        conv_plans.get(s, [](const Conv2dShape&) { return ConvPlan{}; }).ops[int(op)];
    if (chosen) return *chosen;
    const ConvKernel fixed = fixed_conv_kernel(s);
    // A choice names a kernel measured for this shape; a number from an
    // edited cache file may not, and is then measured again and rewritten.
    const auto is_candidate = [&](int choice) {
        const bool known = std::ranges::find(kConvKernels, ConvKernel(choice)) != std::end(kConvKernels);
        return known && (ConvKernel(choice) != ConvKernel::winograd || winograd_candidate(s)) &&
               !onednn_1x1_nhwc_weights_overflow(s, op, ConvKernel(choice));
    };
    const int choice = kernel_choices().choose(conv_key(s, op), int(fixed), [&]() -> MeasuredChoice {
        std::vector<Step> candidates;
        std::vector<ConvKernel> kernels;
        std::vector<std::string> names;
        for (const ConvKernel candidate : kConvKernels) {
            if (!is_candidate(int(candidate))) continue;
            std::optional<Step> step = try_build_conv_step(s, op, candidate);
            // oneDNN's reference loops run where a layout has no kernel for
            // this ISA and precision (bf16 NHWC on some ops): tens of times
            // slower, so not worth timing.
            if (!step || (is_reference_kernel(*step) && candidate != fixed)) continue;
            reserve_scratch(step->scratch_bytes);
            candidates.push_back(std::move(*step));
            kernels.push_back(candidate);
            names.push_back(conv_kernel_name(candidate));
        }
        // None built: the fixed kernel's build below reports oneDNN's error.
        if (candidates.empty()) return int(fixed);
        // Fast only if accurate: each candidate's output on these inputs
        // against float64, within the precision's bound (conv_accuracy.h).
        const ConvReference reference = conv_reference(s, op, handles);
        MeasuredChoice measured = choose_accurate_fastest(
            reference, conv_error_bound(precision), kTimingsPerCandidate, names,
            [&](int i) {
                candidates[std::size_t(i)].run(stream, handles, scratch.get());
                stream.wait();
            },
            [&] { return handle(handles, conv_output_arg(op)); });
        measured.choice = int(kernels[std::size_t(measured.choice)]);
        return measured;
    }, is_candidate, /*needs_error=*/true);
    if (is_candidate(choice)) chosen = try_build_conv_step(s, op, ConvKernel(choice));
    if (!chosen) chosen = build_conv_step(s, op, fixed);
    reserve_scratch(chosen->scratch_bytes);
    return *chosen;
}

std::optional<Step> OneDnnBackend::Impl::try_build_conv_step(const Conv2dShape& s, ConvOp op,
                                                              ConvKernel kernel) {
    try {
        return build_conv_step(s, op, kernel);
    } catch (const dnnl::error&) {
        return std::nullopt;  // oneDNN has no such kernel for this shape, ISA or precision
    }
}

// Shapes that have the Winograd candidate were measured without it before
// it existed: their key says so, and older cached choices are measured again.
std::string OneDnnBackend::Impl::conv_key(const Conv2dShape& s, ConvOp op) const {
    static const char* names[] = {"forward", "backward_data", "backward_weights"};
    return conv_choice_key(machine, names[int(op)], s) + (winograd_candidate(s) ? " +winograd" : "");
}

std::string OneDnnBackend::Impl::machine_name(Precision precision) {
    const dnnl_version_t* v = dnnl_version();
    // fp32 keys stay as they were before precisions existed: caches written then still hold.
    const std::string in =
        precision == Precision::fp32 ? "" : std::string(" ") + precision_name(precision);
    return format("onednn %d.%d.%d %s%s | ", v->major, v->minor, v->patch,
                  isa_name(dnnl::get_effective_cpu_isa()).c_str(), in.c_str()) +
           cpu_model_name();
}

std::string OneDnnBackend::version() {
    const dnnl_version_t* v = dnnl_version();
    return format("oneDNN %d.%d.%d (%s)", v->major, v->minor, v->patch,
                  isa_name(dnnl::get_effective_cpu_isa()).c_str());
}

bool OneDnnBackend::has_winograd() {
    static const bool has = [] {
        Impl impl(Precision::fp32);
        const Conv2dShape s{.batch = 1, .in_channels = 16, .in_h = 8, .in_w = 8,
                            .out_channels = 16, .kernel = 3, .pad = 1};
        return impl.try_build_conv_step(s, ConvOp::forward, ConvKernel::winograd).has_value();
    }();
    return has;
}

void OneDnnBackend::conv2d_forward(const Conv2dShape& s, const float* x, const float* w,
                                   const float* b, float* y) {
    // Without a bias, zeros: oneDNN adds the bias as it stores each output,
    // so one primitive serves both and the zeros cost nothing measurable.
    if (!b && impl_->zero_bias.size() < std::size_t(s.out_channels))
        impl_->zero_bias.resize(std::size_t(s.out_channels), 0.f);
    const Handles handles{{DNNL_ARG_SRC, x}, {DNNL_ARG_WEIGHTS, w},
                          {DNNL_ARG_BIAS, b ? b : impl_->zero_bias.data()}, {DNNL_ARG_DST, y}};
    impl_->conv_step(s, ConvOp::forward, handles).run(impl_->stream, handles, impl_->scratch.get());
}

void OneDnnBackend::conv2d_backward_data(const Conv2dShape& s, const float* dy, const float* w,
                                         float* dx) {
    const Handles handles{{DNNL_ARG_DIFF_DST, dy}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DIFF_SRC, dx}};
    impl_->conv_step(s, ConvOp::backward_data, handles)
        .run(impl_->stream, handles, impl_->scratch.get());
}

void OneDnnBackend::conv2d_backward_weights(const Conv2dShape& s, const float* x,
                                            const float* dy, float* dw, float* db) {
    const Handles handles{{DNNL_ARG_SRC, x}, {DNNL_ARG_DIFF_DST, dy}, {DNNL_ARG_DIFF_WEIGHTS, dw}};
    impl_->conv_step(s, ConvOp::backward_weights, handles)
        .run(impl_->stream, handles, impl_->scratch.get());
    if (db) host::conv2d_bias_backward(s, dy, db);
}

}  // namespace dp
