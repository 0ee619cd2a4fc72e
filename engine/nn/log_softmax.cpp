#include "nn/log_softmax.h"

namespace dp {

void LogSoftmax::build(ParameterStore&, const SampleShape& input) { classes_ = int(input.size()); }

void LogSoftmax::forward(Backend& backend, const Pass& pass, const float* x, float* y) {
    backend.log_softmax_forward(pass.batch, classes_, x, y);
}

void LogSoftmax::backward(Backend& backend, const Pass& pass, const float*, const float* y,
                          const float* dy, float* dx) {
    if (dx) backend.log_softmax_backward(pass.batch, classes_, y, dy, dx);
}

}  // namespace dp
