#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "nn/sequential.h"

namespace dp {

struct ModelInfo {
    std::string name;         // what --model takes, e.g. "lenet"
    std::string title;        // how people write it, e.g. "LeNet": chart legends
    std::string description;  // one line, for --help and the GUI
    std::size_t parameters;   // trainable parameters on Fashion-MNIST (1 x 28 x 28, 10 classes)
    bool batch_norm = false;  // has BatchNorm layers: what synchronized BatchNorm acts on
};

// The models a user can pick, in display order.
const std::vector<ModelInfo>& model_registry();

// The registry entry of `name`; throws dp::Error for an unknown one.
const ModelInfo& model_info(const std::string& name);

// Builds the named model for inputs of shape channels x height x width and
// `classes` outputs. Throws dp::Error for an unknown name, listing the known
// ones (and, when the model is built, for an input it cannot take).
std::unique_ptr<Sequential> build_model(const std::string& name, const SampleShape& input,
                                        int classes);

}  // namespace dp
