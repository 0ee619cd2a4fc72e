#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "models/model_info.h"
#include "nn/sequential.h"

namespace dp {

// Builds the named model for inputs of shape channels x height x width and
// `classes` outputs. Throws dp::Error for an unknown name, listing the known
// ones (and, when the model is built, for an input it cannot take).
std::unique_ptr<Sequential> build_model(const std::string& name, const SampleShape& input,
                                        int classes);

}  // namespace dp
