#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "backend/backend.h"

namespace dp {

// How a parameter starts: the seeds draw weights from normal(0, 0.01) and
// set biases to zero.
enum class ParameterInit { normal_0_01, zeros };

struct ParameterInfo {
    std::string name;        // PyTorch state_dict name, e.g. "conv1.weight"
    std::vector<int> shape;  // PyTorch layout
    ParameterInit init = ParameterInit::zeros;
    std::size_t offset = 0;  // into the contiguous buffers
    std::size_t size = 0;
};

// All parameters of one replica in one contiguous device buffer, and all its
// gradients in another with the same offsets (Caffe's design): all-reduce and
// the optimizer work on large slices, and each layer sees views into them.
class ParameterStore {
public:
    // Layers declare their parameters before allocate(); returns the index.
    std::size_t declare(std::string name, std::vector<int> shape, ParameterInit init);

    // Allocates both buffers on `backend` and initializes the values from `seed`.
    void allocate(Backend& backend, std::uint64_t seed);

    const std::vector<ParameterInfo>& infos() const { return infos_; }
    std::size_t total_size() const { return total_size_; }

    float* values() { return values_.get(); }
    float* gradients() { return gradients_.get(); }
    float* value(std::size_t index) { return values_.get() + infos_[index].offset; }
    float* gradient(std::size_t index) { return gradients_.get() + infos_[index].offset; }

private:
    std::vector<ParameterInfo> infos_;
    std::size_t total_size_ = 0;
    DeviceBuffer values_{nullptr, nullptr};
    DeviceBuffer gradients_{nullptr, nullptr};
};

}  // namespace dp
