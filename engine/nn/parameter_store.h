#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "backend/backend.h"

namespace dp {

// How a parameter or buffer starts: the seeds draw weights from
// normal(0, 0.01) and set biases to zero; BatchNorm's scale and running
// variance start at one.
enum class ParameterInit { normal_0_01, zeros, ones };

struct ParameterInfo {
    std::string name;        // PyTorch state_dict name, e.g. "conv1.weight"
    std::vector<int> shape;  // PyTorch layout
    ParameterInit init = ParameterInit::zeros;
    std::size_t offset = 0;  // into the contiguous buffers
    std::size_t size = 0;
};

// NaN and infinite values among parameters: how many, and the first tensor
// holding one. A diverged run leaves them; no checkpoint should keep them.
struct NonFiniteValues {
    std::size_t count = 0;
    std::string first_tensor;  // e.g. "conv1.weight"; empty when count is 0
    explicit operator bool() const { return count != 0; }
    // "58827 NaN or infinite values (the first in conv1.weight)"
    std::string describe() const;
};
// Counts them in `values`, laid out as `infos` describe.
NonFiniteValues find_non_finite(const std::vector<ParameterInfo>& infos,
                                std::span<const float> values);

// All parameters of one replica in one contiguous device buffer, and all its
// gradients in another with the same offsets (Caffe's design): all-reduce and
// the optimizer work on large slices, and each layer sees views into them.
// Untrained state that a checkpoint keeps (PyTorch's buffers: BatchNorm's
// running statistics) lives in a third contiguous buffer.
class ParameterStore {
public:
    // Layers declare their parameters and buffers before allocate(); each
    // returns the index.
    std::size_t declare(std::string name, std::vector<int> shape, ParameterInit init);
    std::size_t declare_buffer(std::string name, std::vector<int> shape, ParameterInit init);

    // Allocates everything on `backend` and initializes the values from `seed`.
    void allocate(Backend& backend, std::uint64_t seed);

    const std::vector<ParameterInfo>& infos() const { return infos_; }
    std::size_t total_size() const { return total_size_; }
    const std::vector<ParameterInfo>& buffer_infos() const { return buffer_infos_; }
    std::size_t buffers_size() const { return buffers_size_; }
    float* buffers() { return buffers_.get(); }
    float* buffer(std::size_t index) { return buffers_.get() + buffer_infos_[index].offset; }

    float* values() { return values_.get(); }
    float* gradients() { return gradients_.get(); }
    float* value(std::size_t index) { return values_.get() + infos_[index].offset; }
    float* gradient(std::size_t index) { return gradients_.get() + infos_[index].offset; }

private:
    std::vector<ParameterInfo> infos_, buffer_infos_;
    std::size_t total_size_ = 0, buffers_size_ = 0;
    DeviceBuffer values_{nullptr, nullptr};
    DeviceBuffer gradients_{nullptr, nullptr};
    DeviceBuffer buffers_{nullptr, nullptr};
};

}  // namespace dp
