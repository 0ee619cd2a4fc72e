#include "backend/conv_accuracy.h"

#include <algorithm>
#include <cmath>

#include "backend/reference/reference_ops.h"
#include "core/format.h"

namespace dp {
namespace {

using Doubles = std::vector<double>;

// `count` floats from `from` appended to `to` as doubles.
void append(Doubles& to, const float* from, std::size_t count) {
    to.insert(to.end(), from, from + count);
}

// `count` distinct (first, second) pairs spread evenly over [0, first_size)
// x [0, second_size), every pair when count allows: each coordinate steps
// through its whole range, so a sample meets every block of channels a
// blocked kernel splits them into.
std::vector<std::pair<int, int>> spread_pairs(int first_size, int second_size, std::size_t count) {
    const std::size_t total = std::size_t(first_size) * std::size_t(second_size);
    count = std::clamp<std::size_t>(count, 1, total);
    std::vector<std::pair<int, int>> pairs;
    for (std::size_t j = 0; j < count; ++j) {
        // The j-th of `count` evenly spaced pairs in row-major order, the
        // second coordinate shifted by the first so that a spacing that is
        // a multiple of second_size does not keep meeting one column.
        const std::size_t at = j * total / count;
        const std::size_t first = at / std::size_t(second_size);
        pairs.emplace_back(int(first), int((at + first) % std::size_t(second_size)));
    }
    return pairs;
}

}  // namespace

ConvReference::ConvReference(const Conv2dShape& s, ConvPass pass, const float* a, const float* b,
                             const float* bias) {
    const std::size_t in_plane = std::size_t(s.in_h) * s.in_w;
    const std::size_t out_plane = std::size_t(s.out_h()) * s.out_w();
    const std::size_t window = std::size_t(s.kernel) * s.kernel;
    // One plane at a time through the reference loops, on a shape of one
    // image and one output channel (forward), one image and one input
    // channel (backward-data) or one channel pair over the batch
    // (backward-weights): the same loops the reference backend runs.
    Conv2dShape one = s;
    std::size_t plane_cost = 0;
    int first_size = 0, second_size = 0;
    switch (pass) {
    case ConvPass::forward:
        one.batch = 1, one.out_channels = 1;
        plane_cost = std::size_t(s.in_channels) * window * out_plane;
        first_size = s.batch, second_size = s.out_channels;
        break;
    case ConvPass::backward_data:
        one.batch = 1, one.in_channels = 1;
        plane_cost = std::size_t(s.out_channels) * window * out_plane;
        first_size = s.batch, second_size = s.in_channels;
        break;
    case ConvPass::backward_weights:
        one.in_channels = 1, one.out_channels = 1;
        plane_cost = std::size_t(s.batch) * window * out_plane;
        first_size = s.out_channels, second_size = s.in_channels;
        break;
    }
    const auto pairs =
        spread_pairs(first_size, second_size, kMultiplyAddBudget / std::max<std::size_t>(plane_cost, 1));
    Doubles left, right, out, bias_sum(1);
    for (const auto& [first, second] : pairs) {
        left.clear(), right.clear();
        std::size_t base = 0;
        switch (pass) {
        case ConvPass::forward: {  // image `first`, output channel `second`
            append(left, a + std::size_t(first) * s.in_channels * in_plane, s.in_channels * in_plane);
            append(right, b + std::size_t(second) * s.in_channels * window, s.in_channels * window);
            const double shift = bias ? double(bias[second]) : 0.0;
            out.assign(out_plane, 0.0);
            reference::conv2d_forward(one, left.data(), right.data(), &shift, out.data());
            base = (std::size_t(first) * s.out_channels + second) * out_plane;
            break;
        }
        case ConvPass::backward_data: {  // image `first`, input channel `second`
            append(left, a + std::size_t(first) * s.out_channels * out_plane, s.out_channels * out_plane);
            for (int o = 0; o < s.out_channels; ++o)
                append(right, b + (std::size_t(o) * s.in_channels + second) * window, window);
            out.assign(in_plane, 0.0);
            reference::conv2d_backward_data(one, left.data(), right.data(), out.data());
            base = (std::size_t(first) * s.in_channels + second) * in_plane;
            break;
        }
        case ConvPass::backward_weights: {  // output channel `first`, input channel `second`
            for (int n = 0; n < s.batch; ++n) {
                append(left, a + (std::size_t(n) * s.in_channels + second) * in_plane, in_plane);
                append(right, b + (std::size_t(n) * s.out_channels + first) * out_plane, out_plane);
            }
            out.assign(window, 0.0);
            reference::conv2d_backward_weights(one, left.data(), right.data(), out.data(),
                                               bias_sum.data());
            base = (std::size_t(first) * s.in_channels + second) * window;
            break;
        }
        }
        for (std::size_t i = 0; i < out.size(); ++i) {
            indices_.push_back(base + i);
            exact_.push_back(out[i]);
        }
        multiply_adds_ += plane_cost;
    }
}

double ConvReference::relative_error(const float* out) const {
    double difference = 0, norm = 0;
    for (std::size_t i = 0; i < indices_.size(); ++i) {
        const double d = double(out[indices_[i]]) - exact_[i];
        difference += d * d;
        norm += exact_[i] * exact_[i];
    }
    if (norm == 0) return difference == 0 ? 0.0 : INFINITY;
    return std::sqrt(difference / norm);
}

std::optional<double> conv_error_bound(Precision precision) {
    switch (precision) {
    // A float32 sum of K products rounds by about sqrt(K) * 6e-8 of its
    // size, and blocked summation by less. Measured (oneDNN 2.6.3 on an
    // AMD EPYC Zen 4, ResNet-18 and LeNet at 28x28, batch 128-256): direct
    // kernels 5e-8 to 2e-6, but for backward-weights sums of 100k products
    // (ResNet-18's first layer) the blocked and NHWC kernels reach 2.5e-5
    // where gemm on NCHW gets 9e-7; oneDNN's Winograd 1e-7 to 7e-7 there.
    // 1e-5 is 5x what direct kernels measure on ordinary sums, and refuses
    // a kernel rounding 10x coarser (on a Zen 5 CPU oneDNN's Winograd left
    // two ResNet-18 steps 7.7x further from float64 than PyTorch's fp32).
    case Precision::fp32: return 1e-5;
    case Precision::fp32_fast: return std::nullopt;
    // bfloat16 inputs round by up to 2^-9 (rms 1.1e-3 per input): direct
    // kernels measure 7e-4 to 3e-3 (LeNet); 2e-2 refuses only a kernel that
    // is broken or rounds several times coarser still.
    case Precision::bf16: return 2e-2;
    // TF32's 10-bit mantissa: inputs round by up to 2^-11, 4x finer than
    // bf16 (GPUs only; cuDNN does not use this bound yet).
    case Precision::tf32: return 5e-3;
    }
    return std::nullopt;
}

std::optional<double> conv_error_limit(std::optional<double> bound,
                                       std::span<const double> measured_errors) {
    if (!bound) return std::nullopt;
    double least = INFINITY;
    for (const double error : measured_errors)
        if (error >= 0) least = std::min(least, error);
    return std::isfinite(least) ? std::max(*bound, 2 * least) : *bound;
}

MeasuredChoice choose_accurate_fastest(const ConvReference& reference, std::optional<double> bound,
                                       int repeats, std::span<const std::string> names,
                                       const std::function<void(int)>& run,
                                       const std::function<const float*()>& output) {
    // The accuracy runs come first, outside the timings: each is also its
    // candidate's warm-up (first-touch page faults, oneDNN's jit caches).
    std::vector<double> errors;
    for (std::size_t i = 0; i < names.size(); ++i) {
        run(int(i));
        const double error = reference.relative_error(output());
        errors.push_back(std::isnan(error) ? INFINITY : error);  // NaN output: as far off as can be
    }
    const auto limit = conv_error_limit(bound, errors);
    std::vector<int> accurate;
    std::string note;
    for (std::size_t i = 0; i < names.size(); ++i) {
        const bool refused = limit && !(errors[i] <= *limit);
        if (!refused) accurate.push_back(int(i));
        note += format("%s%s %.1e%s", note.empty() ? "" : ", ", names[i].c_str(), errors[i],
                       refused ? " (refused)" : "");
    }
    if (limit) note += format("; limit %.1e", *limit);
    // conv_error_limit keeps the most accurate candidate within the limit,
    // unless no output was finite: then the first candidate.
    if (accurate.empty()) accurate.push_back(0);
    const int fastest = accurate.size() == 1
                            ? accurate[0]
                            : accurate[std::size_t(fastest_candidate(
                                  int(accurate.size()), repeats,
                                  [&](int i) { run(accurate[std::size_t(i)]); }))];
    return {fastest, errors[std::size_t(fastest)], note};
}

}  // namespace dp
