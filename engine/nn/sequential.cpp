#include "nn/sequential.h"

#include "backend/op_profiler.h"
#include "core/error.h"
#include "core/format.h"

namespace dp {
namespace {

// What a layer's parameters are named under ("conv1" for conv1.weight and
// conv1.bias, "layer3.0" for a residual block's): the dotted prefix they
// share; empty for a layer without parameters.
std::string parameter_prefix(const std::vector<ParameterInfo>& infos, std::size_t first,
                             std::size_t end) {
    if (first >= end) return {};
    std::string prefix = infos[first].name;
    for (std::size_t i = first + 1; i < end; ++i) {
        std::size_t n = 0;
        while (n < prefix.size() && n < infos[i].name.size() && prefix[n] == infos[i].name[n]) ++n;
        prefix.resize(n);
    }
    const auto dot = prefix.rfind('.');
    return dot == std::string::npos ? prefix : prefix.substr(0, dot);
}

std::string shape_text(const SampleShape& shape) {
    return format("%dx%dx%d", shape.channels, shape.height, shape.width);
}

}  // namespace

Sequential::Sequential(SampleShape input, int classes, Loss loss)
    : input_(input), classes_(classes), loss_(loss) {}

void Sequential::add(std::unique_ptr<Layer> layer) { layers_.push_back(std::move(layer)); }

void Sequential::declare() {
    if (declared_) return;
    declared_ = true;
    SampleShape shape = input_;
    for (auto& layer : layers_) {
        const std::size_t first = parameters_.infos().size();
        first_parameter_.push_back(first);
        layer->build(parameters_, shape);
        const SampleShape input = shape;
        shape = layer->output_shape(shape);
        output_shapes_.push_back(shape);
        // "layer 3 conv2: 20x13x13 -> 50x9x9": how the per-op timer names its calls.
        const std::string prefix = parameter_prefix(parameters_.infos(), first,
                                                    parameters_.infos().size());
        labels_.push_back(format("layer %zu%s%s: %s -> %s", labels_.size() + 1,
                                 prefix.empty() ? "" : " ", prefix.c_str(),
                                 shape_text(input).c_str(), shape_text(shape).c_str()));
    }
    if (shape.size() != std::size_t(classes_))
        throw Error("model: the last layer gives " + std::to_string(shape.size()) +
                    " outputs for " + std::to_string(classes_) + " classes");
}

void Sequential::build(Backend& backend, int max_batch, std::uint64_t seed) {
    declare();
    backend_ = &backend;
    parameters_.allocate(backend, seed);
    for (std::size_t i = 0; i < layers_.size(); ++i) {
        layers_[i]->allocate(backend, max_batch);
        const std::size_t floats = output_shapes_[i].size() * max_batch;
        outputs_.push_back(backend.allocate(floats));
        if (i + 1 < layers_.size()) output_grads_.push_back(backend.allocate(floats));
    }
}

bool Sequential::draws_per_step() const {
    for (const auto& layer : layers_)
        if (layer->draws_per_step()) return true;
    return false;
}

std::size_t Sequential::activation_floats_per_sample() const {
    std::size_t floats = 0;
    for (std::size_t i = 0; i < output_shapes_.size(); ++i)
        floats += output_shapes_[i].size() * (i + 1 < output_shapes_.size() ? 2 : 1);
    return floats;
}

const float* Sequential::forward(const Pass& pass, const float* input) {
    const float* x = input;
    for (std::size_t i = 0; i < layers_.size(); ++i) {
        if (pass.batch > 0 || layers_[i]->runs_on_empty_shard(pass)) {
            const LayerScope scope(labels_[i]);
            layers_[i]->forward(*backend_, pass, x, outputs_[i].get());
        }
        x = outputs_[i].get();
    }
    return x;
}

void Sequential::backward(const Pass& pass, const float* input, const float* dlogits,
                          const GradientsFinal& on_gradients_final) {
    const float* dy = dlogits;
    // No samples, no gradient: the layers skipped below leave theirs zero.
    if (pass.batch == 0) backend_->fill(parameters_.gradients(), parameters_.total_size(), 0.f);
    for (std::size_t i = layers_.size(); i-- > 0;) {
        const float* x = i == 0 ? input : outputs_[i - 1].get();
        float* dx = i == 0 ? nullptr : output_grads_[i - 1].get();
        if (pass.batch > 0 || layers_[i]->runs_on_empty_shard(pass)) {
            const LayerScope scope(labels_[i]);
            layers_[i]->backward(*backend_, pass, x, outputs_[i].get(), dy, dx);
        }
        const std::size_t next_layer_first = i + 1 < layers_.size() ? first_parameter_[i + 1]
                                                                    : parameters_.infos().size();
        if (on_gradients_final && first_parameter_[i] < next_layer_first)
            on_gradients_final(first_parameter_[i]);
        dy = dx;
    }
}

}  // namespace dp
