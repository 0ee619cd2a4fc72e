#pragma once

#include <compare>
#include <cstddef>

namespace dp {

// The shape of one sample, channels x height x width (1 x 1 x F for features).
struct SampleShape {
    int channels = 1, height = 1, width = 1;
    std::size_t size() const { return std::size_t(channels) * height * width; }
    auto operator<=>(const SampleShape&) const = default;
};

}  // namespace dp
