#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "io/safetensors.h"

namespace dp::golden {

// A golden tensor's values as floats: F32 as stored, I64 (labels, counts,
// packed weight codes) converted.
inline std::vector<float> floats_of(const TensorEntry& tensor) {
    std::vector<float> values(tensor.element_count());
    if (tensor.dtype == TensorDtype::f32) {
        copy_elements(tensor, values);
    } else {
        std::vector<std::int64_t> integers(values.size());
        copy_elements(tensor, integers);
        std::copy(integers.begin(), integers.end(), values.begin());
    }
    return values;
}

}  // namespace dp::golden
