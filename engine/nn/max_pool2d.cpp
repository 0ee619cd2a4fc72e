#include "nn/max_pool2d.h"

namespace dp {

void MaxPool2d::allocate(Backend& backend, int max_batch) {
    const std::size_t bytes = backend.max_pool2d_workspace_size(shape(max_batch));
    workspace_ = backend.allocate((bytes + sizeof(float) - 1) / sizeof(float));
}

void MaxPool2d::forward(Backend& backend, const Pass& pass, const float* x, float* y) {
    backend.max_pool2d_forward(shape(pass.batch), x, y, workspace_.get());
}

void MaxPool2d::backward(Backend& backend, const Pass& pass, const float*, const float*,
                         const float* dy, float* dx) {
    if (dx) backend.max_pool2d_backward(shape(pass.batch), dy, workspace_.get(), dx);
}

}  // namespace dp
