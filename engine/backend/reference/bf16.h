#pragma once

// bfloat16 on the host: float32's sign, exponent and top 7 mantissa bits, as
// raw 16-bit words. Rounding is to nearest, ties to even, on the bits, so
// subnormals round like any other value (no flush to zero) and a value
// within half a bf16 ulp of float's largest rounds to infinity, as CUDA's
// __float2bfloat16_rn and PyTorch's .to(torch.bfloat16) round. A NaN stays a
// NaN (quiet, its sign kept); its payload is not kept: PyTorch itself gives
// 0x7fc0 from its scalar path and 0xffff from its vectorized one.
// tests/engine/test_bf16_ops.cpp checks these bits against PyTorch's.

#include <bit>
#include <cstdint>

namespace dp::reference {

constexpr std::uint16_t round_to_bf16(float value) {
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
    if ((bits & 0x7fffffffu) > 0x7f800000u) return std::uint16_t((bits >> 16) | 0x0040u);
    const std::uint32_t to_nearest_even = 0x7fffu + ((bits >> 16) & 1u);
    return std::uint16_t((bits + to_nearest_even) >> 16);
}

// Exact: every bf16 value is a float.
constexpr float widen_bf16(std::uint16_t word) {
    return std::bit_cast<float>(std::uint32_t(word) << 16);
}

// value rounded to bf16 and back: what a bf16 tensor holds of it.
constexpr float bf16_rounded(float value) { return widen_bf16(round_to_bf16(value)); }

}  // namespace dp::reference
