#include "data/random_dataset.h"

#include <cmath>
#include <random>

namespace dp {

Dataset make_random_dataset(int count, int features, int classes, std::uint64_t seed) {
    Dataset set;
    set.count = count;
    set.channels = 1;
    set.height = 1;
    set.width = features;
    set.classes = classes;
    set.images.resize(std::size_t(count) * features);
    set.labels.resize(count);
    // Box-Muller and a modulo on mt19937_64's raw output: the same values
    // with every standard library (std::normal_distribution is not portable).
    std::mt19937_64 bits(seed);
    const auto uniform_open = [&] { return (double(bits() >> 11) + 0.5) * 0x1.0p-53; };
    for (float& value : set.images)
        value = float(std::sqrt(-2.0 * std::log(uniform_open())) *
                      std::cos(6.283185307179586 * uniform_open()));
    for (auto& label : set.labels) label = std::int32_t(bits() % std::uint64_t(classes));
    return set;
}

}  // namespace dp
