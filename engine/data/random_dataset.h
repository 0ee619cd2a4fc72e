#pragma once

#include <cstdint>

#include "data/dataset.h"

namespace dp {

// Seed 004's RandomDataset: `count` samples of `features` standard-normal
// values (shape 1 x 1 x features) with uniform random labels among
// `classes`. The same seed gives the same set.
Dataset make_random_dataset(int count, int features, int classes, std::uint64_t seed);

}  // namespace dp
