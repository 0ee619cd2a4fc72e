#include "models/mnistnet.h"

#include "nn/conv2d.h"
#include "nn/dropout.h"
#include "nn/linear.h"
#include "nn/log_softmax.h"
#include "nn/max_pool2d.h"
#include "nn/relu.h"

namespace dp {

std::unique_ptr<Sequential> make_mnistnet(const SampleShape& input, int classes, float dropout) {
    auto model = std::make_unique<Sequential>(input, classes, Sequential::Loss::nll);
    model->add(std::make_unique<Conv2d>("conv1", input.channels, 10, 5));
    model->add(std::make_unique<MaxPool2d>(2, 2));
    model->add(std::make_unique<Relu>());
    model->add(std::make_unique<Conv2d>("conv2", 10, 20, 5));
    model->add(std::make_unique<Dropout>(Dropout::Unit::channel, dropout, 1));
    model->add(std::make_unique<MaxPool2d>(2, 2));
    model->add(std::make_unique<Relu>());
    // 20 x 4 x 4 = 320 on 28 x 28 inputs.
    const int pooled = (((input.height - 4) / 2 - 4) / 2) * (((input.width - 4) / 2 - 4) / 2);
    model->add(std::make_unique<Linear>("fc1", 20 * pooled, 50));
    model->add(std::make_unique<Relu>());
    model->add(std::make_unique<Dropout>(Dropout::Unit::element, dropout, 2));
    model->add(std::make_unique<Linear>("fc2", 50, classes));
    model->add(std::make_unique<LogSoftmax>());
    return model;
}

}  // namespace dp
