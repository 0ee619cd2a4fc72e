#include "models/model_registry.h"

#include <functional>

#include "core/error.h"
#include "models/lenet.h"
#include "models/linear_model.h"
#include "models/mnistnet.h"
#include "models/resnet18.h"

namespace dp {
namespace {

struct ModelEntry {
    std::string name, title, description;
    std::function<std::unique_ptr<Sequential>(const SampleShape&, int)> make;
    bool batch_norm = false;
};

const std::vector<ModelEntry>& entries() {
    static const std::vector<ModelEntry> models{
        {"lenet", "LeNet", "LeNet of d2l 12.5: two conv + avg-pool stages, two linear layers", make_lenet},
        {"resnet18", "ResNet-18", "ResNet-18 of d2l 12.6: 8 residual blocks with BatchNorm, 64-512 channels",
         [](const SampleShape& input, int classes) { return make_resnet18(input, classes); }, true},
        {"resnet18-narrow", "ResNet-18/8", "ResNet-18 with 1/8 of the channels (8-64): quick CPU demos",
         [](const SampleShape& input, int classes) { return make_resnet18(input, classes, 8); }, true},
        {"mnistnet", "MNIST CNN", "PyTorch's MNIST example CNN: conv, max-pool, dropout, log-softmax",
         [](const SampleShape& input, int classes) { return make_mnistnet(input, classes); }},
        {"linear", "Linear", "PyTorch's DataParallel tutorial's toy: one linear layer (softmax regression on images)",
         make_linear_model},
    };
    return models;
}

}  // namespace

const std::vector<ModelInfo>& model_registry() {
    static const std::vector<ModelInfo> infos = [] {
        const SampleShape fashion_mnist{1, 28, 28};
        std::vector<ModelInfo> list;
        for (const auto& entry : entries()) {
            auto model = entry.make(fashion_mnist, 10);
            model->declare();  // counts parameters without allocating them
            list.push_back({entry.name, entry.title, entry.description,
                            model->parameters().total_size(), entry.batch_norm});
        }
        return list;
    }();
    return infos;
}

namespace {

[[noreturn]] void unknown_model(const std::string& name) {
    std::string known;
    for (const auto& entry : entries()) known += (known.empty() ? "" : ", ") + entry.name;
    throw Error("unknown model '" + name + "' (known: " + known + ")");
}

}  // namespace

const ModelInfo& model_info(const std::string& name) {
    for (const auto& info : model_registry())
        if (info.name == name) return info;
    unknown_model(name);
}

std::unique_ptr<Sequential> build_model(const std::string& name, const SampleShape& input,
                                        int classes) {
    for (const auto& entry : entries())
        if (entry.name == name) return entry.make(input, classes);
    unknown_model(name);
}

std::vector<GradientSpan> model_gradient_spans(const std::string& name) {
    const auto model = build_model(name, SampleShape{1, 28, 28}, 10);
    model->declare();  // lays the parameters out without allocating them
    std::vector<GradientSpan> spans;
    for (const ParameterInfo& parameter : model->parameters().infos())
        spans.push_back({parameter.offset, parameter.size});
    return spans;
}

}  // namespace dp
