#include "nn/max_pool2d.h"

namespace dp {

MaxPool2d::MaxPool2d(int kernel, int stride, int pad) {
    geometry_.kernel = kernel;
    geometry_.stride = stride;
    geometry_.pad = pad;
}

SampleShape MaxPool2d::output_shape(const SampleShape& input) const {
    Pool2dShape s = geometry_;
    s.in_h = input.height;
    s.in_w = input.width;
    return {input.channels, s.out_h(), s.out_w()};
}

void MaxPool2d::build(ParameterStore&, const SampleShape& input) {
    geometry_.channels = input.channels;
    geometry_.in_h = input.height;
    geometry_.in_w = input.width;
}

void MaxPool2d::allocate(Backend& backend, int max_batch) {
    const std::size_t bytes = backend.max_pool2d_workspace_size(shape(max_batch));
    workspace_ = backend.allocate((bytes + sizeof(float) - 1) / sizeof(float));
}

Pool2dShape MaxPool2d::shape(int batch) const {
    Pool2dShape s = geometry_;
    s.batch = batch;
    return s;
}

void MaxPool2d::forward(Backend& backend, const Pass& pass, const float* x, float* y) {
    backend.max_pool2d_forward(shape(pass.batch), x, y, workspace_.get());
}

void MaxPool2d::backward(Backend& backend, const Pass& pass, const float*, const float*,
                         const float* dy, float* dx) {
    if (dx) backend.max_pool2d_backward(shape(pass.batch), dy, workspace_.get(), dx);
}

}  // namespace dp
