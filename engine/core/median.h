#pragma once

#include <algorithm>
#include <vector>

namespace dp {

// The median of `values` (sorted in place), the mean of the middle two for
// an even count; 0 for none. What a timing quotes instead of a mean, which
// one slow epoch or repeat would pull.
inline double median_of(std::vector<double>& values) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace dp
