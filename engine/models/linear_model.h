#pragma once

#include <memory>

#include "nn/sequential.h"

namespace dp {

// Seed 004's toy, nn.Linear(input_size, output_size) as module "fc": one
// linear layer from all input features to the classes (softmax regression).
std::unique_ptr<Sequential> make_linear_model(const SampleShape& input, int classes);

}  // namespace dp
