#include "checkpoint/checkpoint.h"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string_view>
#include <type_traits>

#include "core/error.h"
#include "io/safetensors.h"

namespace dp {
namespace {

// The metadata key naming the model a checkpoint was saved from.
constexpr const char* kModelKey = "dp_workbench_model";

[[noreturn]] void fail(const std::filesystem::path& file, const std::string& problem) {
    throw Error(file.string() + ": " + problem);
}

std::vector<std::int64_t> to_shape(const std::vector<int>& shape) { return {shape.begin(), shape.end()}; }

std::string shape_text(const std::vector<std::int64_t>& shape) {
    std::string text = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i > 0) text += ',';
        text += std::to_string(shape[i]);
    }
    return text + "]";
}

// The model name comes from the file and goes into a one-line message.
std::string printable(std::string text) {
    std::replace_if(
        text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }, '?');
    return text;
}

// Checks before anything is read or written that each parameter lies within
// the values and that its size agrees with its shape.
void check_layout(const std::vector<ParameterInfo>& infos, std::size_t value_count) {
    for (const ParameterInfo& info : infos) {
        if (info.offset > value_count || info.size > value_count - info.offset)
            throw std::invalid_argument("checkpoint: parameter " + info.name + " lies outside the " +
                                        std::to_string(value_count) + " values given");
        if (std::size_t(std::accumulate(info.shape.begin(), info.shape.end(), std::int64_t{1},
                                        std::multiplies<>())) != info.size)
            throw std::invalid_argument("checkpoint: parameter " + info.name +
                                        " has a size unlike its shape");
    }
}

TensorDtype buffer_dtype(const NamedBuffer& buffer) {
    return std::holds_alternative<std::vector<float>>(buffer.values) ? TensorDtype::f32 : TensorDtype::i64;
}

struct ExpectedTensor {
    std::string_view name;
    TensorDtype dtype;
    std::vector<std::int64_t> shape;
};

// Checks the file holds exactly the expected tensors with their dtypes and
// shapes; returns each expected tensor's entry, in order.
std::vector<const TensorEntry*> match_tensors(const std::filesystem::path& file,
                                              const std::string& model_name,
                                              const SafetensorsFile& checkpoint,
                                              const std::vector<ExpectedTensor>& expected) {
    std::map<std::string_view, const TensorEntry*> by_name;
    for (const TensorEntry& tensor : checkpoint.tensors) by_name.emplace(tensor.name, &tensor);

    std::vector<const TensorEntry*> matched;
    for (const ExpectedTensor& want : expected) {
        const auto it = by_name.find(want.name);
        if (it == by_name.end()) fail(file, "missing tensor " + std::string(want.name));
        const TensorEntry& tensor = *it->second;
        if (tensor.dtype != want.dtype)
            fail(file, std::string(want.name) + " is " + dtype_name(tensor.dtype) +
                           " in the file, the model expects " + dtype_name(want.dtype));
        if (tensor.shape != want.shape)
            fail(file, std::string(want.name) + " has shape " + shape_text(tensor.shape) +
                           " in the file, the model expects " + shape_text(want.shape));
        matched.push_back(&tensor);
        by_name.erase(it);
    }
    // What is left was not expected; the first in file order is reported.
    for (const TensorEntry& tensor : checkpoint.tensors)
        if (by_name.contains(tensor.name))
            fail(file,
                 "unexpected tensor " + tensor.name + ": model '" + model_name + "' has none by that name");
    return matched;
}

}  // namespace

void save_checkpoint(const std::filesystem::path& file, const std::string& model_name,
                     const std::vector<ParameterInfo>& infos, std::span<const float> values,
                     std::span<const NamedBuffer> buffers) {
    check_layout(infos, values.size());
    if (const NonFiniteValues bad = find_non_finite(infos, values))
        fail(file, "not saved: the weights hold " + bad.describe() +
                       ", so training diverged; lower the learning rate");
    std::vector<TensorEntry> tensors;
    for (const ParameterInfo& info : infos)
        tensors.push_back(
            f32_tensor(info.name, to_shape(info.shape), values.subspan(info.offset, info.size)));
    for (const NamedBuffer& buffer : buffers)
        std::visit(
            [&](const auto& elements) {
                using Element = typename std::decay_t<decltype(elements)>::value_type;
                if constexpr (std::is_same_v<Element, float>)
                    tensors.push_back(f32_tensor(buffer.name, to_shape(buffer.shape), elements));
                else
                    tensors.push_back(i64_tensor(buffer.name, to_shape(buffer.shape), elements));
            },
            buffer.values);
    // "format": "pt" tells Hugging Face loaders the tensors are in PyTorch layout.
    write_safetensors_atomically(file, tensors, {{"format", "pt"}, {kModelKey, model_name}});
}

void load_checkpoint(const std::filesystem::path& file, const std::string& model_name,
                     const std::vector<ParameterInfo>& infos, std::span<float> values,
                     std::span<NamedBuffer> buffers) {
    check_layout(infos, values.size());
    const SafetensorsFile checkpoint = read_safetensors(file);
    if (const auto it = checkpoint.metadata.find(kModelKey);
        it != checkpoint.metadata.end() && it->second != model_name)
        fail(file, "checkpoint of model '" + printable(it->second) + "', not '" + model_name + "'");

    std::vector<ExpectedTensor> expected;
    for (const ParameterInfo& info : infos)
        expected.push_back({info.name, TensorDtype::f32, to_shape(info.shape)});
    for (const NamedBuffer& buffer : buffers)
        expected.push_back({buffer.name, buffer_dtype(buffer), to_shape(buffer.shape)});
    const std::vector<const TensorEntry*> matched = match_tensors(file, model_name, checkpoint, expected);

    // Everything matched and is finite, so the caller's state is overwritten
    // whole or not at all.
    std::vector<float> loaded(values.size());
    for (std::size_t i = 0; i < infos.size(); ++i)
        copy_elements(*matched[i], std::span(loaded).subspan(infos[i].offset, infos[i].size));
    if (const NonFiniteValues bad = find_non_finite(infos, loaded))
        fail(file, "its weights hold " + bad.describe() +
                       ", as a diverged run leaves them: load an earlier checkpoint or train "
                       "from the seed");
    std::copy(loaded.begin(), loaded.end(), values.begin());
    for (std::size_t i = 0; i < buffers.size(); ++i) {
        const TensorEntry& tensor = *matched[infos.size() + i];
        std::visit(
            [&](auto& elements) {
                elements.resize(tensor.element_count());
                copy_elements(tensor, std::span(elements));
            },
            buffers[i].values);
    }
}

}  // namespace dp
