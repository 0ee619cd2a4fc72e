#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dp {

// The number format convolutions and linear layers multiply in, as PyTorch's
// autocast chooses it: everything else (loss, BatchNorm statistics and
// update, pooling, ReLU, the all-reduce, SGD and the master weights) stays
// float32 whatever the precision, so layers and the parameter store only
// ever see float buffers; a backend rounds at the primitive's input.
//   fp32  float32 products (the default; bit-reproducible on one machine),
//         by kernels whose measured error is float32's own: the kernel cache
//         refuses a faster one that rounds coarser (conv_accuracy.h)
//   fp32-fast  float32 products by the fastest kernel, whatever its
//         rounding (oneDNN's Winograd, cuDNN's FFT and Winograd): speed
//         over accuracy, as the user asked, and the run record says so
//   bf16  bfloat16 inputs (8-bit mantissa), float32 accumulation and
//         float32 outputs: oneDNN on AVX512_BF16 or AMX, cuDNN on GPUs
//   tf32  TensorFloat-32 tensor cores (10-bit mantissa products), GPUs only
enum class Precision { fp32, fp32_fast, bf16, tf32 };

// "fp32", "fp32-fast", "bf16", "tf32": the names settings and records use.
const char* precision_name(Precision precision);
// The precision a name names; none for an unknown name.
std::optional<Precision> parse_precision(std::string_view name);
// The precision a name names; throws dp::Error naming the known ones otherwise.
Precision precision_named(std::string_view name);
// Every name, in the order --help lists them.
std::vector<std::string> precision_names();

}  // namespace dp
