#pragma once

#include <filesystem>
#include <string>

#include "backend/backend.h"
#include "nn/parameter_store.h"

namespace dp {

// A replica's parameters and buffers to and from a PyTorch-compatible
// safetensors checkpoint (see checkpoint/checkpoint.h): downloads from / uploads to
// the device, and stores num_batches_tracked as PyTorch's int64 scalar.
// BatchNorm statistics that are NaN or infinite, or a negative running_var,
// are refused both ways with a one-line dp::Error naming the file and the
// tensor: a checkpoint holding them is not loaded (nothing is uploaded), and
// a replica holding them is not saved (the file keeps its last state).
void save_model(const std::filesystem::path& file, const std::string& model_name,
                ParameterStore& store, Backend& backend);
void load_model(const std::filesystem::path& file, const std::string& model_name,
                ParameterStore& store, Backend& backend);

}  // namespace dp
