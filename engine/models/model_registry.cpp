#include "models/model_registry.h"

#include <functional>

#include "core/error.h"
#include "models/lenet.h"
#include "models/mnistnet.h"
#include "models/resnet18.h"

namespace dp {
namespace {

struct ModelEntry {
    ModelInfo info;
    std::function<std::unique_ptr<Sequential>(const SampleShape&, int)> make;
};

const std::vector<ModelEntry>& entries() {
    static const std::vector<ModelEntry> models{
        {{"lenet", "LeNet of d2l 12.5: two conv + avg-pool stages, two linear layers"},
         make_lenet},
        {{"resnet18", "ResNet-18 of d2l 12.6: 8 residual blocks with BatchNorm, 64-512 channels"},
         [](const SampleShape& input, int classes) { return make_resnet18(input, classes); }},
        {{"resnet18-narrow", "ResNet-18 with 1/8 of the channels (8-64): quick CPU demos"},
         [](const SampleShape& input, int classes) { return make_resnet18(input, classes, 8); }},
        {{"mnistnet", "PyTorch's MNIST example CNN: conv, max-pool, dropout, log-softmax"},
         [](const SampleShape& input, int classes) { return make_mnistnet(input, classes); }},
    };
    return models;
}

}  // namespace

const std::vector<ModelInfo>& model_registry() {
    static const std::vector<ModelInfo> infos = [] {
        std::vector<ModelInfo> list;
        for (const auto& entry : entries()) list.push_back(entry.info);
        return list;
    }();
    return infos;
}

std::unique_ptr<Sequential> build_model(const std::string& name, const SampleShape& input) {
    constexpr int classes = 10;
    for (const auto& entry : entries())
        if (entry.info.name == name) return entry.make(input, classes);
    std::string known;
    for (const auto& entry : entries()) known += (known.empty() ? "" : ", ") + entry.info.name;
    throw Error("unknown model '" + name + "' (known: " + known + ")");
}

std::size_t parameter_count(const std::string& name, const SampleShape& input) {
    auto model = build_model(name, input);
    model->declare();
    return model->parameters().total_size();
}

}  // namespace dp
