#include "nn/residual_block.h"

namespace dp {

ResidualBlock::ResidualBlock(const std::string& name, int in_channels, int out_channels,
                             bool use_1x1conv, int stride, bool fused_bn_relu)
    : conv1_(name + ".conv1", in_channels, out_channels, 3, stride, 1),
      conv2_(name + ".conv2", out_channels, out_channels, 3, 1, 1),
      bn_relu1_(name + ".bn1", out_channels, fused_bn_relu),
      bn2_(name + ".bn2", out_channels) {
    if (use_1x1conv) conv3_.emplace(name + ".conv3", in_channels, out_channels, 1, stride, 0);
    // Each BatchNorm cancels its convolution's bias (the shortcut's has none after it).
    bn_relu1_.follow(conv1_);
    bn2_.follow(conv2_);
}

SampleShape ResidualBlock::output_shape(const SampleShape& input) const {
    return conv2_.output_shape(conv1_.output_shape(input));
}

void ResidualBlock::build(ParameterStore& store, const SampleShape& input) {
    input_ = input;
    const SampleShape inner = conv1_.output_shape(input);
    output_ = output_shape(input);
    // PyTorch's registration order: conv1, conv2, conv3, bn1, bn2.
    conv1_.build(store, input);
    conv2_.build(store, inner);
    if (conv3_) conv3_->build(store, input);
    bn_relu1_.build(store, inner);
    bn2_.build(store, output_);
    relu_out_.build(store, output_);
}

void ResidualBlock::allocate(Backend& backend, int max_batch) {
    const std::size_t floats = output_.size() * max_batch;  // every inner activation's size
    for (auto* buffer : {&conv1_out_, &relu1_out_, &conv2_out_, &sum_, &dsum_,
                         &grad_a_, &grad_b_})
        *buffer = backend.allocate(floats);
    if (conv3_) {
        shortcut_ = backend.allocate(floats);
        shortcut_grad_ = backend.allocate(input_.size() * max_batch);
    }
    bn_relu1_.allocate(backend, max_batch);
    bn2_.allocate(backend, max_batch);
}

void ResidualBlock::forward(Backend& backend, const Pass& pass, const float* x, float* y) {
    if (pass.batch == 0) {  // an empty shard: only synchronized BatchNorm's all-reduces, in order
        bn_relu1_.forward(backend, pass, conv1_out_.get(), relu1_out_.get());
        bn2_.forward(backend, pass, conv2_out_.get(), sum_.get());
        return;
    }
    conv1_.forward(backend, pass, x, conv1_out_.get());
    bn_relu1_.forward(backend, pass, conv1_out_.get(), relu1_out_.get());
    conv2_.forward(backend, pass, relu1_out_.get(), conv2_out_.get());
    bn2_.forward(backend, pass, conv2_out_.get(), sum_.get());
    const float* shortcut = x;
    if (conv3_) {
        conv3_->forward(backend, pass, x, shortcut_.get());
        shortcut = shortcut_.get();
    }
    backend.add(output_.size() * pass.batch, sum_.get(), shortcut, sum_.get());
    relu_out_.forward(backend, pass, sum_.get(), y);
}

void ResidualBlock::backward(Backend& backend, const Pass& pass, const float* x, const float* y,
                             const float* dy, float* dx) {
    float* dsum = dsum_.get();
    if (pass.batch == 0) {  // as forward; the convolutions' gradients stay Sequential's zeros
        bn2_.backward(backend, pass, conv2_out_.get(), nullptr, dsum, grad_a_.get());
        bn_relu1_.backward(backend, pass, conv1_out_.get(), relu1_out_.get(), grad_a_.get(),
                           grad_b_.get());
        return;
    }
    relu_out_.backward(backend, pass, sum_.get(), y, dy, dsum);

    // Main path, alternating between two scratch buffers.
    float* a = grad_a_.get();
    float* b = grad_b_.get();
    bn2_.backward(backend, pass, conv2_out_.get(), nullptr, dsum, a);
    conv2_.backward(backend, pass, relu1_out_.get(), conv2_out_.get(), a, b);
    bn_relu1_.backward(backend, pass, conv1_out_.get(), relu1_out_.get(), b, a);
    conv1_.backward(backend, pass, x, conv1_out_.get(), a, dx);

    // Shortcut: d(sum) reaches x unchanged, or through the projection.
    const std::size_t dx_size = input_.size() * pass.batch;
    if (conv3_) {
        conv3_->backward(backend, pass, x, shortcut_.get(), dsum, dx ? shortcut_grad_.get() : nullptr);
        if (dx) backend.accumulate(dx_size, shortcut_grad_.get(), dx);
    } else if (dx) {
        backend.accumulate(dx_size, dsum, dx);
    }
}

}  // namespace dp
