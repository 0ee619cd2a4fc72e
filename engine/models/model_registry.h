#pragma once

#include <memory>
#include <string>
#include <vector>

#include "nn/sequential.h"

namespace dp {

struct ModelInfo {
    std::string name;         // what --model takes, e.g. "lenet"
    std::string description;  // one line, for --help and the GUI
};

// The models a user can pick, in display order.
const std::vector<ModelInfo>& model_registry();

// Builds the named model for inputs of shape channels x height x width.
// Throws dp::Error for an unknown name, listing the known ones.
std::unique_ptr<Sequential> build_model(const std::string& name, const SampleShape& input);

// Number of trainable parameters of the named model on that input.
std::size_t parameter_count(const std::string& name, const SampleShape& input);

}  // namespace dp
