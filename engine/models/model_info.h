#pragma once

// The models as front ends meet them: names, titles, sizes, and where their
// parameters lie, without their layers (nn/) or the backend those compute
// through. The engine's face for models; building one is models/model_registry.h.

#include <cstddef>
#include <string>
#include <vector>

#include "parallel/bucket_plan.h"

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

// Where each trainable parameter of model `name` lies in the gradient buffer
// of its replica, in forward order, on Fashion-MNIST's images (1 x 28 x 28,
// 10 classes): what a front end plans gradient buckets from (plan_buckets)
// without building the model itself. Throws dp::Error for an unknown name.
std::vector<GradientSpan> model_gradient_spans(const std::string& name);

}  // namespace dp
