#pragma once

#include <memory>

#include "nn/sequential.h"

namespace dp {

// d2l's ResNet-18 for 1-channel images (d2l 12.6): stem conv 3x3/1 + BN +
// ReLU, four stages of two residual blocks (64, 128, 256, 512 channels; the
// first block of stages 2-4 strides by 2 with a 1x1 projection), global
// average pooling, linear 512 -> classes. 11,175,818 parameters for 10
// classes. `width_divisor` narrows every stage (8: 8, 16, 32, 64 channels)
// for golden tests and quick demos.
std::unique_ptr<Sequential> make_resnet18(const SampleShape& input, int classes,
                                          int width_divisor = 1);

}  // namespace dp
