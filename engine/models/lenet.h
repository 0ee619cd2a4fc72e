#pragma once

#include <memory>

#include "nn/sequential.h"

namespace dp {

// The LeNet of d2l 12.5: conv 1->20 3x3, ReLU, avg-pool 2,
// conv 20->50 5x5, ReLU, avg-pool 2, linear 800->128, ReLU, linear 128->10,
// each ReLU before a pool fused with it (nn/relu_avg_pool2d.h).
std::unique_ptr<Sequential> make_lenet(const SampleShape& input, int classes);

}  // namespace dp
