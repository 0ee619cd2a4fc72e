#include "io/model_checkpoint.h"

#include <vector>

#include "io/checkpoint.h"

namespace dp {
namespace {

// PyTorch keeps this counter as int64; the store keeps every buffer as float.
bool is_counter(const ParameterInfo& info) { return info.name.ends_with(".num_batches_tracked"); }

std::vector<NamedBuffer> named_buffers(const ParameterStore& store, const std::vector<float>& host) {
    std::vector<NamedBuffer> buffers;
    for (const auto& info : store.buffer_infos()) {
        const auto first = host.begin() + std::ptrdiff_t(info.offset);
        std::vector<float> values(first, first + std::ptrdiff_t(info.size));
        if (is_counter(info))
            buffers.push_back({info.name, info.shape,
                               std::vector<std::int64_t>(values.begin(), values.end())});
        else
            buffers.push_back({info.name, info.shape, std::move(values)});
    }
    return buffers;
}

}  // namespace

void save_model(const std::filesystem::path& file, const std::string& model_name,
                ParameterStore& store, Backend& backend) {
    std::vector<float> values(store.total_size()), buffer_values(store.buffers_size());
    backend.download(store.values(), values.data(), values.size());
    backend.download(store.buffers(), buffer_values.data(), buffer_values.size());
    save_checkpoint(file, model_name, store.infos(), values,
                    named_buffers(store, buffer_values));
}

void load_model(const std::filesystem::path& file, const std::string& model_name,
                ParameterStore& store, Backend& backend) {
    std::vector<float> values(store.total_size()), buffer_values(store.buffers_size());
    auto buffers = named_buffers(store, buffer_values);
    load_checkpoint(file, model_name, store.infos(), values, buffers);
    for (std::size_t i = 0; i < buffers.size(); ++i) {
        const auto& info = store.buffer_infos()[i];
        std::visit(
            [&](const auto& loaded) {
                for (std::size_t k = 0; k < loaded.size(); ++k)
                    buffer_values[info.offset + k] = float(loaded[k]);
            },
            buffers[i].values);
    }
    backend.upload(values.data(), store.values(), values.size());
    backend.upload(buffer_values.data(), store.buffers(), buffer_values.size());
}

}  // namespace dp
