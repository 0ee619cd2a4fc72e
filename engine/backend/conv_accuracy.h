#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/kernel_choices.h"
#include "backend/precision.h"

namespace dp {

// How far a convolution kernel's output is from float64, measured when a
// kernel cache times a shape's candidates (oneDNN's layouts and Winograd,
// cuDNN's algorithms), so that a kernel is chosen for speed only when its
// rounding is the precision's: on a Zen 5 CPU oneDNN's fp32 Winograd was the
// fastest for ResNet-18's 3x3 convolutions and ended two SGD steps 7.7x
// further from float64 than PyTorch's own fp32 (issue 40). Host memory and
// the reference loops only (reference_ops.h), so every backend can use it:
// one with device memory downloads the pass's inputs and output first.

// The three passes of a convolution, as kernel caches name them.
enum class ConvPass { forward, backward_data, backward_weights };

// The float64 value of a sample of one pass's outputs, computed from the
// float32 inputs the pass was given: planes of whole outputs (forward: some
// (image, output channel) planes; backward-data: some (image, input channel)
// planes; backward-weights: some (output, input channel) kernel windows,
// each summed over the whole batch), spread evenly over the tensor, as many
// as kMultiplyAddBudget multiply-adds allow (at least one). A whole pass
// would take a minute per layer in the reference loops (3.7 G multiply-adds
// for ResNet-18's 64->64 3x3 convolution of 128 images of 28x28); the
// sample takes 4 M, about 60 ms on one core of a loaded Zen 4 (a cold
// cache's ResNet-18 run at batch 128 meets 43 passes, training and
// evaluation: about 2.5 s), and still holds thousands of outputs, each the
// full sum.
class ConvReference {
public:
    static constexpr std::size_t kMultiplyAddBudget = std::size_t(1) << 22;

    // The pass's inputs, as the Backend's conv2d_* ops take them:
    //   forward:          a = x, b = w, bias (null: none)
    //   backward_data:    a = dy, b = w
    //   backward_weights: a = x, b = dy (the weight gradient only)
    ConvReference(const Conv2dShape& s, ConvPass pass, const float* a, const float* b,
                  const float* bias = nullptr);

    // ||out - exact|| / ||exact|| over the sample; `out` is the pass's whole
    // output (y, dx or dw), host memory. 0 when both are zero.
    double relative_error(const float* out) const;

    std::size_t sampled_outputs() const { return indices_.size(); }
    std::size_t multiply_adds() const { return multiply_adds_; }

private:
    std::vector<std::size_t> indices_;  // into the pass's output tensor
    std::vector<double> exact_;
    std::size_t multiply_adds_ = 0;
};

// The error a kernel may measure in `precision`, relative to the output's
// norm (ConvReference::relative_error): what direct summation measures in
// that number format with a margin, far below what a transform kernel
// measures in fp32. None for fp32-fast, which takes the fastest kernel.
std::optional<double> conv_error_bound(Precision precision);

// The bound a shape's candidates are held to: `bound`, or twice the least
// error a candidate measured when the data make every kernel round worse
// (sums that cancel), so that a kernel as accurate as the best one is never
// refused. Errors below zero were not measured and are left out; none when
// `bound` is none.
std::optional<double> conv_error_limit(std::optional<double> bound,
                                       std::span<const double> measured_errors);

// A kernel cache's measurement of one pass's candidates on a miss: each
// candidate runs once (run(i) writes the pass's whole output, which
// output() then gives in host memory) and is compared with `reference`;
// those within conv_error_limit(bound, errors) are timed, best of `repeats`
// taking turns (fastest_candidate), and the fastest is chosen. Returns its
// index among the candidates and its error; the note lists every
// candidate's error by `names`, marking those refused as inaccurate.
MeasuredChoice choose_accurate_fastest(const ConvReference& reference, std::optional<double> bound,
                                       int repeats, std::span<const std::string> names,
                                       const std::function<void(int)>& run,
                                       const std::function<const float*()>& output);

}  // namespace dp
