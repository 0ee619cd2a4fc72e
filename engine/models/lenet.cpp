#include "models/lenet.h"

#include "nn/conv2d.h"
#include "nn/linear.h"
#include "nn/relu.h"
#include "nn/relu_avg_pool2d.h"

namespace dp {

std::unique_ptr<Sequential> make_lenet(const SampleShape& input, int classes) {
    auto model = std::make_unique<Sequential>(input, classes);
    // Each nn.ReLU, nn.AvgPool2d(2, 2) pair of the seed is one layer.
    model->add(std::make_unique<Conv2d>("conv1", input.channels, 20, 3));
    model->add(std::make_unique<ReluAvgPool2d>(2, 2));
    model->add(std::make_unique<Conv2d>("conv2", 20, 50, 5));
    model->add(std::make_unique<ReluAvgPool2d>(2, 2));
    // 50 x 4 x 4 on 28 x 28 inputs; other input sizes give other widths.
    const SampleShape pooled{50, ((input.height - 2) / 2 - 4) / 2, ((input.width - 2) / 2 - 4) / 2};
    model->add(std::make_unique<Linear>("fc1", int(pooled.size()), 128));
    model->add(std::make_unique<Relu>());
    model->add(std::make_unique<Linear>("fc2", 128, classes));
    return model;
}

}  // namespace dp
