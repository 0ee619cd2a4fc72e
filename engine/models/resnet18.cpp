#include "models/resnet18.h"

#include "nn/batch_norm2d_relu.h"
#include "nn/conv2d.h"
#include "nn/global_avg_pool2d.h"
#include "nn/linear.h"
#include "nn/residual_block.h"

namespace dp {

std::unique_ptr<Sequential> make_resnet18(const SampleShape& input, int classes,
                                          int width_divisor) {
    const int stem = 64 / width_divisor;
    const bool fused = fuse_batch_norm_relu();  // read once, for every pair of the model
    auto model = std::make_unique<Sequential>(input, classes);
    // Names follow the seed's nn.Sequential: "0" the conv, "1" its BatchNorm
    // ("2" its ReLU, which has no parameters).
    auto stem_conv = std::make_unique<Conv2d>("0", input.channels, stem, 3, 1, 1);
    auto stem_norm = std::make_unique<BatchNorm2dRelu>("1", stem, fused);
    stem_norm->follow(*stem_conv);
    model->add(std::move(stem_conv));
    model->add(std::move(stem_norm));
    int channels = stem;
    for (int stage = 1; stage <= 4; ++stage) {
        const int out = stem << (stage - 1);
        const std::string prefix = "resnet_block" + std::to_string(stage);
        const bool downsample = stage > 1;
        model->add(std::make_unique<ResidualBlock>(prefix + ".0", channels, out, downsample,
                                                   downsample ? 2 : 1, fused));
        model->add(std::make_unique<ResidualBlock>(prefix + ".1", out, out, false, 1, fused));
        channels = out;
    }
    model->add(std::make_unique<GlobalAvgPool2d>());
    model->add(std::make_unique<Linear>("fc.1", channels, classes));  // "fc.0" is the Flatten
    return model;
}

}  // namespace dp
