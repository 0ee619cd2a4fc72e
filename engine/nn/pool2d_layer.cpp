#include "nn/pool2d_layer.h"

#include <string>

#include "core/error.h"

namespace dp {

Pool2dLayer::Pool2dLayer(int kernel, int stride, int pad) {
    geometry_.kernel = kernel;
    geometry_.stride = stride;
    geometry_.pad = pad;
}

SampleShape Pool2dLayer::output_shape(const SampleShape& input) const {
    Pool2dShape s = geometry_;
    s.in_h = input.height;
    s.in_w = input.width;
    return {input.channels, s.out_h(), s.out_w()};
}

void Pool2dLayer::build(ParameterStore&, const SampleShape& input) {
    geometry_.channels = input.channels;
    geometry_.in_h = input.height;
    geometry_.in_w = input.width;
    // out_h() truncates toward zero, so a 1-pixel input would give a 1-pixel
    // output from a 2x2 window (PyTorch refuses it): the layers after it
    // would then be sized for 0 features and get 1.
    const int padded_h = input.height + 2 * geometry_.pad, padded_w = input.width + 2 * geometry_.pad;
    if (padded_h < geometry_.kernel || padded_w < geometry_.kernel)
        throw Error("pooling: input " + std::to_string(input.height) + "x" + std::to_string(input.width) +
                    " is smaller than its " + std::to_string(geometry_.kernel) + "x" +
                    std::to_string(geometry_.kernel) + " window");
}

Pool2dShape Pool2dLayer::shape(int batch) const {
    Pool2dShape s = geometry_;
    s.batch = batch;
    return s;
}

}  // namespace dp
