#include "nn/parameter_store.h"

#include <cmath>
#include <functional>
#include <numeric>
#include <random>

#include "core/format.h"

namespace dp {
namespace {

// Box-Muller on mt19937_64's raw output: unlike std::normal_distribution, its
// values are the same with every standard library, so a seed means one model.
class PortableNormal {
public:
    explicit PortableNormal(std::uint64_t seed) : bits_(seed) {}

    double operator()() {
        constexpr double two_pi = 6.283185307179586;
        const double u1 = uniform_open(), u2 = uniform_open();
        return std::sqrt(-2.0 * std::log(u1)) * std::cos(two_pi * u2);
    }

private:
    double uniform_open() { return (double(bits_() >> 11) + 0.5) * 0x1.0p-53; }
    std::mt19937_64 bits_;
};

// Appends a tensor to a contiguous layout; returns its index.
std::size_t append(std::vector<ParameterInfo>& infos, std::size_t& total, std::string name,
                   std::vector<int> shape, ParameterInit init) {
    const std::size_t size =
        std::accumulate(shape.begin(), shape.end(), std::size_t{1}, std::multiplies<>());
    infos.push_back({std::move(name), std::move(shape), init, total, size});
    total += size;
    return infos.size() - 1;
}

// Initial values of a layout on the host, normal draws in declaration order.
std::vector<float> initial_values(const std::vector<ParameterInfo>& infos, std::size_t total,
                                  PortableNormal& normal) {
    std::vector<float> host(total, 0.f);
    for (const auto& info : infos)
        for (std::size_t i = 0; i < info.size; ++i)
            host[info.offset + i] = info.init == ParameterInit::normal_0_01 ? float(0.01 * normal())
                                    : info.init == ParameterInit::ones      ? 1.f
                                                                            : 0.f;
    return host;
}

}  // namespace

std::size_t ParameterStore::declare(std::string name, std::vector<int> shape, ParameterInit init) {
    return append(infos_, total_size_, std::move(name), std::move(shape), init);
}

std::size_t ParameterStore::declare_buffer(std::string name, std::vector<int> shape,
                                           ParameterInit init) {
    return append(buffer_infos_, buffers_size_, std::move(name), std::move(shape), init);
}

void ParameterStore::allocate(Backend& backend, std::uint64_t seed) {
    values_ = backend.allocate(total_size_);
    gradients_ = backend.allocate(total_size_);
    buffers_ = backend.allocate(buffers_size_);

    PortableNormal normal(seed);
    backend.upload(initial_values(infos_, total_size_, normal).data(), values_.get(), total_size_);
    backend.fill(gradients_.get(), total_size_, 0.f);
    backend.upload(initial_values(buffer_infos_, buffers_size_, normal).data(), buffers_.get(),
                   buffers_size_);
}

NonFiniteValues find_non_finite(const std::vector<ParameterInfo>& infos,
                                std::span<const float> values) {
    NonFiniteValues found;
    for (const ParameterInfo& info : infos) {
        std::size_t count = 0;
        for (const float value : values.subspan(info.offset, info.size))
            count += !std::isfinite(value);
        if (count && found.first_tensor.empty()) found.first_tensor = info.name;
        found.count += count;
    }
    return found;
}

std::string NonFiniteValues::describe() const {
    return format("%zu NaN or infinite value%s (the first in %s)", count, count == 1 ? "" : "s",
                  first_tensor.c_str());
}

}  // namespace dp
