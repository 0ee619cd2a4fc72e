#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "data/dataset.h"

namespace dp {

// The order in which one epoch visits a data set: a seeded Fisher-Yates
// permutation (same seed and epoch, same order, on every platform and rank),
// or file order when shuffling is off.
class EpochSampler {
public:
    EpochSampler(int count, std::uint64_t seed, bool shuffle);

    // Indices of epoch `epoch` (0-based).
    std::span<const int> order(int epoch);

private:
    std::uint64_t seed_;
    bool shuffle_;
    std::vector<int> order_;
};

// Copies the samples `indices` of `set` into contiguous host buffers.
void gather_batch(const Dataset& set, std::span<const int> indices, float* images,
                  std::int32_t* labels);

}  // namespace dp
