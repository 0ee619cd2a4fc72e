#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "nn/parameter_store.h"

namespace dp {

// Non-trainable state saved beside the parameters, as PyTorch's state_dict
// keeps it: BatchNorm's running_mean and running_var are F32, its
// num_batches_tracked an I64 scalar (shape []).
struct NamedBuffer {
    std::string name;        // state_dict name, e.g. "bn1.running_mean"
    std::vector<int> shape;  // PyTorch layout; {} for a scalar
    std::variant<std::vector<float>, std::vector<std::int64_t>> values;  // the dtype is the alternative held
};

// A model's weights as a safetensors file a PyTorch model with the same
// state_dict names loads with load_state_dict(strict=True). The metadata
// records the model name. Values are host memory, laid out as `infos`
// describe (ParameterStore's contiguous buffer downloaded from the device),
// so the caller does the device transfers. The write is atomic (see
// write_safetensors_atomically); failures throw dp::Error naming the file.
void save_checkpoint(const std::filesystem::path& file, const std::string& model_name,
                     const std::vector<ParameterInfo>& infos, std::span<const float> values,
                     std::span<const NamedBuffer> buffers = {});

// Fills `values` (laid out as `infos` describe) and each buffer's values from
// `file`. Like load_state_dict(strict=True), the file must hold exactly the
// expected tensors, each with the expected dtype and shape; otherwise
// dp::Error names the file and the first mismatch, and nothing is written.
// A file whose metadata names another model is refused; one without a model
// name (written by PyTorch, say) loads if its tensors match.
void load_checkpoint(const std::filesystem::path& file, const std::string& model_name,
                     const std::vector<ParameterInfo>& infos, std::span<float> values,
                     std::span<NamedBuffer> buffers = {});

}  // namespace dp
