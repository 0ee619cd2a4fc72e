#include "train/parameter_drift.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>

#include "core/error.h"
#include "io/atomic_file.h"
#include "io/bounded_file.h"

namespace dp {

double max_relative_difference(std::span<const float> a, std::span<const float> b, double floor) {
    double worst = 0;
    const std::size_t n = std::min(a.size(), b.size());
    for (std::size_t i = 0; i < n; ++i) {
        const double x = a[i], y = b[i];
        worst = std::max(worst, std::abs(x - y) / std::max({std::abs(x), std::abs(y), floor}));
    }
    return worst;
}

double relative_norm_difference(std::span<const float> a, std::span<const float> b) {
    double difference = 0, reference = 0;
    const std::size_t n = std::min(a.size(), b.size());
    for (std::size_t i = 0; i < n; ++i) {
        const double d = double(a[i]) - b[i];
        difference += d * d;
        reference += double(b[i]) * b[i];
    }
    return reference > 0 ? std::sqrt(difference / reference) : std::sqrt(difference);
}

std::filesystem::path epoch_snapshot_path(const std::filesystem::path& dir, int epoch) {
    return dir / ("epoch-" + std::to_string(epoch) + ".f32");
}

void write_parameter_snapshot(const std::filesystem::path& file, std::span<const float> parameters) {
    AtomicFile out(file);
    out.write(std::as_bytes(parameters));
    out.commit();
}

std::optional<std::vector<float>> read_parameter_snapshot(const std::filesystem::path& file,
                                                          std::size_t count) {
    try {
        BoundedFile in(file, count * sizeof(float));
        if (in.size() != count * sizeof(float)) return std::nullopt;
        std::vector<float> parameters(count);
        in.read_exactly(parameters.data(), count * sizeof(float));
        return parameters;
    } catch (const Error&) {
        return std::nullopt;
    }
}

}  // namespace dp
