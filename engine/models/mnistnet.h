#pragma once

#include <memory>

#include "nn/sequential.h"

namespace dp {

// The CNN of PyTorch's MNIST example (as a PyTorch DataParallel guide trains it): conv 1->10 5x5, max-pool,
// ReLU, conv 10->20 5x5, dropout2d, max-pool, ReLU, linear 320->50, ReLU,
// dropout, linear 50->10, log-softmax; trained with the NLL loss. Module
// names as in the seed: conv1, conv2, fc1, fc2. `dropout` is both dropout
// probabilities (0 turns them off, as the golden tests do).
std::unique_ptr<Sequential> make_mnistnet(const SampleShape& input, int classes,
                                          float dropout = 0.5f);

}  // namespace dp
