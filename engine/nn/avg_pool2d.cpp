#include "nn/avg_pool2d.h"

namespace dp {

AvgPool2d::AvgPool2d(int kernel, int stride) {
    geometry_.kernel = kernel;
    geometry_.stride = stride;
}

SampleShape AvgPool2d::output_shape(const SampleShape& input) const {
    Pool2dShape s = geometry_;
    s.in_h = input.height;
    s.in_w = input.width;
    return {input.channels, s.out_h(), s.out_w()};
}

void AvgPool2d::build(ParameterStore&, const SampleShape& input) {
    geometry_.channels = input.channels;
    geometry_.in_h = input.height;
    geometry_.in_w = input.width;
}

Pool2dShape AvgPool2d::shape(int batch) const {
    Pool2dShape s = geometry_;
    s.batch = batch;
    return s;
}

void AvgPool2d::forward(Backend& backend, const Pass& pass, const float* x, float* y) {
    backend.avg_pool2d_forward(shape(pass.batch), x, y);
}

void AvgPool2d::backward(Backend& backend, const Pass& pass, const float*, const float*, const float* dy,
                         float* dx) {
    if (dx) backend.avg_pool2d_backward(shape(pass.batch), dy, dx);
}

}  // namespace dp
