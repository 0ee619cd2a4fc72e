// Fuzzes the safetensors reader (io/safetensors.h) and the checkpoint loader
// on top of it (checkpoint/checkpoint.h), which matches the tensors against a model's
// layout: here a small one with a weight, a bias and BatchNorm-style buffers
// (F32 running mean, I64 counter), which the seed checkpoint matches. Bad
// input must end in dp::Error: anything else is a bug.

#include <cstdint>
#include <vector>

#include "core/error.h"
#include "checkpoint/checkpoint.h"
#include "io/safetensors.h"
#include "scratch_file.h"

namespace {

constexpr const char* kModelName = "fuzz-model";

std::vector<dp::ParameterInfo> parameter_layout() {
    return {{"fc.weight", {2, 3}, dp::ParameterInit::zeros, 0, 6},
            {"fc.bias", {2}, dp::ParameterInit::zeros, 6, 2}};
}

std::vector<dp::NamedBuffer> buffer_layout() {
    return {{"bn.running_mean", {2}, std::vector<float>(2)},
            {"bn.num_batches_tracked", {}, std::vector<std::int64_t>(1)}};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static ScratchFile scratch("input.safetensors");
    const auto& file = scratch.write(data, size);
    try {
        dp::read_safetensors(file);
    } catch (const dp::Error&) {
    }
    static const std::vector<dp::ParameterInfo> parameters = parameter_layout();
    std::vector<float> values(8);
    std::vector<dp::NamedBuffer> buffers = buffer_layout();
    try {
        dp::load_checkpoint(file, kModelName, parameters, values, buffers);
    } catch (const dp::Error&) {
    }
    return 0;
}
