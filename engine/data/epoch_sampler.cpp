#include "data/epoch_sampler.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>

namespace dp {
namespace {

// Sebastiano Vigna's splitmix64 finalizer: a bijection that spreads every input
// bit over the whole output, so nearby seeds and epochs give unrelated streams.
std::uint64_t splitmix64(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// Uniform in [0, bound) by rejection sampling. std::uniform_int_distribution is
// not used because its algorithm differs between standard libraries, while
// std::mt19937_64's output is fixed by the standard.
std::uint64_t uniform_below(std::mt19937_64& rng, std::uint64_t bound) {
    // Outputs below 2^64 mod bound would make small results more likely.
    const std::uint64_t reject_below = (0 - bound) % bound;
    for (;;) {
        const std::uint64_t draw = rng();
        if (draw >= reject_below) return draw % bound;
    }
}

}  // namespace

EpochSampler::EpochSampler(int count, std::uint64_t seed, bool shuffle)
    : seed_(seed), shuffle_(shuffle) {
    if (count < 0) throw std::invalid_argument("EpochSampler: negative count " + std::to_string(count));
    order_.resize(std::size_t(count));
}

std::span<const int> EpochSampler::order(int epoch) {
    // Rebuilt from file order each time, so an epoch's order does not depend on
    // which epochs were asked for before.
    std::iota(order_.begin(), order_.end(), 0);
    if (shuffle_ && order_.size() > 1) {
        std::mt19937_64 rng(splitmix64(splitmix64(seed_) ^ std::uint64_t(epoch)));
        for (std::size_t i = order_.size() - 1; i > 0; --i)
            std::swap(order_[i], order_[uniform_below(rng, i + 1)]);
    }
    return order_;
}

void gather_batch(const Dataset& set, std::span<const int> indices, float* images,
                  std::int32_t* labels) {
    const std::size_t sample_size = set.sample_size();
    for (std::size_t k = 0; k < indices.size(); ++k) {
        const int index = indices[k];
        if (index < 0 || index >= set.count)
            throw std::out_of_range("gather_batch: index " + std::to_string(index) +
                                    " outside a set of " + std::to_string(set.count));
        std::copy_n(set.images.begin() + std::ptrdiff_t(std::size_t(index) * sample_size), sample_size,
                    images + k * sample_size);
        labels[k] = set.labels[std::size_t(index)];
    }
}

}  // namespace dp
