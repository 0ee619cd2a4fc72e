#include "nn/pool2d_layer.h"

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
}

Pool2dShape Pool2dLayer::shape(int batch) const {
    Pool2dShape s = geometry_;
    s.batch = batch;
    return s;
}

}  // namespace dp
