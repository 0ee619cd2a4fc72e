#include "nn/parameter_store.h"

#include <cmath>
#include <functional>
#include <numeric>
#include <random>

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

}  // namespace

std::size_t ParameterStore::declare(std::string name, std::vector<int> shape, ParameterInit init) {
    const std::size_t size =
        std::accumulate(shape.begin(), shape.end(), std::size_t{1}, std::multiplies<>());
    infos_.push_back({std::move(name), std::move(shape), init, total_size_, size});
    total_size_ += size;
    return infos_.size() - 1;
}

void ParameterStore::allocate(Backend& backend, std::uint64_t seed) {
    values_ = backend.allocate(total_size_);
    gradients_ = backend.allocate(total_size_);

    std::vector<float> host(total_size_, 0.f);
    PortableNormal normal(seed);
    for (const auto& info : infos_) {
        if (info.init != ParameterInit::normal_0_01) continue;
        for (std::size_t i = 0; i < info.size; ++i) host[info.offset + i] = float(0.01 * normal());
    }
    backend.upload(host.data(), values_.get(), total_size_);
    backend.fill(gradients_.get(), total_size_, 0.f);
}

}  // namespace dp
