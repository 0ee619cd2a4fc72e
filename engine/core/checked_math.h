#pragma once

#include <concepts>
#include <optional>

namespace dp {

// Arithmetic on numbers a user typed (a batch size, a device count, a sample
// limit): any of them may be near the type's limit, where the textbook
// `(count + batch - 1) / batch` or `batch * devices` overflows into a wrong
// or negative value that later code trusts.

// count / divisor rounded up, for count >= 0 and divisor > 0; never overflows.
template <std::integral Int>
constexpr Int ceil_div(Int count, Int divisor) {
    return count / divisor + (count % divisor != 0 ? 1 : 0);
}

// a * b, or nothing when the product does not fit in Int.
template <std::integral Int>
constexpr std::optional<Int> checked_multiply(Int a, Int b) {
    Int product{};
    if (__builtin_mul_overflow(a, b, &product)) return std::nullopt;
    return product;
}

}  // namespace dp
