#include "models/linear_model.h"

#include "nn/linear.h"

namespace dp {

std::unique_ptr<Sequential> make_linear_model(const SampleShape& input, int classes) {
    auto model = std::make_unique<Sequential>(input, classes);
    model->add(std::make_unique<Linear>("fc", int(input.size()), classes));
    return model;
}

}  // namespace dp
