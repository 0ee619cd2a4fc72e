#include "checkpoint/model_checkpoint.h"

#include <cmath>
#include <string>
#include <vector>

#include "core/error.h"
#include "checkpoint/checkpoint.h"

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

// BatchNorm's running statistics are buffers, not parameters, so the
// weights' finiteness check never sees them; yet a NaN or infinite mean or
// variance, or a negative variance, makes every evaluation wrong without a
// word (test accuracy 0.1, silently, and saved again). What is wrong with
// the first such buffer, as "bn1.running_var holds 3 NaN or infinite
// values"; empty if none is.
std::string broken_statistics(const std::vector<NamedBuffer>& buffers) {
    for (const NamedBuffer& buffer : buffers) {
        const auto* values = std::get_if<std::vector<float>>(&buffer.values);
        if (!values) continue;
        std::size_t non_finite = 0, negative = 0;
        for (const float value : *values) {
            non_finite += !std::isfinite(value);
            negative += value < 0;
        }
        if (non_finite > 0)
            return buffer.name + " holds " + std::to_string(non_finite) + " NaN or infinite value" +
                   (non_finite == 1 ? "" : "s");
        if (negative > 0 && buffer.name.ends_with(".running_var"))
            return buffer.name + " holds " + std::to_string(negative) + " negative value" +
                   (negative == 1 ? "" : "s") + " (a variance is never negative)";
    }
    return {};
}

}  // namespace

void save_model(const std::filesystem::path& file, const std::string& model_name,
                ParameterStore& store, Backend& backend) {
    std::vector<float> values(store.total_size()), buffer_values(store.buffers_size());
    backend.download(store.values(), values.data(), values.size());
    backend.download(store.buffers(), buffer_values.data(), buffer_values.size());
    const std::vector<NamedBuffer> buffers = named_buffers(store, buffer_values);
    if (const std::string broken = broken_statistics(buffers); !broken.empty())
        throw Error(file.string() + ": not saved: the BatchNorm statistics went wrong (" + broken +
                    "), so training diverged; lower the learning rate");
    save_checkpoint(file, model_name, store.infos(), values, buffers);
}

void load_model(const std::filesystem::path& file, const std::string& model_name,
                ParameterStore& store, Backend& backend) {
    std::vector<float> values(store.total_size()), buffer_values(store.buffers_size());
    auto buffers = named_buffers(store, buffer_values);
    load_checkpoint(file, model_name, store.infos(), values, buffers);
    if (const std::string broken = broken_statistics(buffers); !broken.empty())
        throw Error(file.string() + ": its BatchNorm statistics are broken (" + broken +
                    "), as a diverged run leaves them: load an earlier checkpoint or train from "
                    "the seed");
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
