#pragma once

// Finite-difference gradient checking, after Caffe's GradientChecker and
// flashlight's jacobian tests. An op with output y = f(inputs) is reduced to
// the scalar L = sum(y * r) for a fixed random r, so that dL/dy = r: running
// the op's backward with dy = r gives the analytic dL/d(input), and each of
// its elements must match the central difference
//   (L(x_i + step) - L(x_i - step)) / (2 step).
// Templated on the scalar type: double for the reference ops (tight
// tolerance), float for a Backend (loose tolerance).

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace dp::test {

// |a - b| relative to the larger magnitude, but never to less than `floor`:
// values smaller than the floor are compared absolutely, so that a gradient
// that should be zero is not failed for a rounding-sized difference.
inline double relative_error(double a, double b, double floor) {
    return std::abs(a - b) / std::max({std::abs(a), std::abs(b), floor});
}

// The largest relative error over a set of compared values, and where it is.
struct ErrorReport {
    double worst_error = 0;
    std::size_t worst_index = 0;
    double actual = 0;  // the pair at worst_index
    double expected = 0;
    std::size_t compared = 0;

    // A non-finite value counts as an infinite error (NaN would compare false).
    void add(std::size_t index, double actual_value, double expected_value, double floor) {
        const double error = std::isfinite(actual_value) && std::isfinite(expected_value)
                                 ? relative_error(actual_value, expected_value, floor)
                                 : std::numeric_limits<double>::infinity();
        if (compared == 0 || error > worst_error) {
            worst_error = error;
            worst_index = index;
            actual = actual_value;
            expected = expected_value;
        }
        ++compared;
    }

    std::string describe(std::string_view actual_name = "actual",
                         std::string_view expected_name = "expected") const {
        std::ostringstream out;
        out.precision(9);
        out << "worst relative error " << worst_error << " at element " << worst_index << " ("
            << actual_name << ' ' << actual << ", " << expected_name << ' ' << expected
            << ") over " << compared << " elements";
        return out.str();
    }
};

// Compares two tensors element by element.
template <typename T>
ErrorReport compare_elementwise(const std::vector<T>& actual, const std::vector<T>& expected,
                                double floor) {
    if (actual.size() != expected.size())
        throw std::invalid_argument("compare_elementwise: sizes " + std::to_string(actual.size()) +
                                    " and " + std::to_string(expected.size()) + " differ");
    ErrorReport report;
    for (std::size_t i = 0; i < actual.size(); ++i) report.add(i, actual[i], expected[i], floor);
    return report;
}

// L = sum(y * r), accumulated in double whatever the precision of y.
template <typename T>
double weighted_sum(const std::vector<T>& y, const std::vector<T>& r) {
    if (y.size() != r.size())
        throw std::invalid_argument("weighted_sum: sizes " + std::to_string(y.size()) + " and " +
                                    std::to_string(r.size()) + " differ");
    double sum = 0;
    for (std::size_t i = 0; i < y.size(); ++i) sum += double(y[i]) * double(r[i]);
    return sum;
}

template <typename T>
struct GradientCheckOptions {
    T step;              // each checked element is moved by -step and +step
    double tolerance;    // largest relative error accepted (see relative_error)
    double floor;        // magnitude below which errors are absolute
    std::size_t max_elements = 200;  // larger tensors: a random sample of this many
    std::uint32_t seed = 1;          // of the sample
};

// The element indices a check visits: all of them, or a sorted random sample
// of max_elements of them (each finite difference costs two evaluations of L).
inline std::vector<std::size_t> elements_to_check(std::size_t size, std::size_t max_elements,
                                                  std::uint32_t seed) {
    std::vector<std::size_t> all(size);
    std::iota(all.begin(), all.end(), std::size_t(0));
    if (size <= max_elements) return all;
    std::vector<std::size_t> sample;
    std::mt19937 rng(seed);
    std::sample(all.begin(), all.end(), std::back_inserter(sample), max_elements, rng);
    return sample;
}

// Checks `analytic` = dL/d(input) against central differences. `loss()`
// evaluates L (as a double) at the current contents of `input`; the checker
// perturbs `input` in place and restores each element exactly.
template <typename T, typename Loss>
ErrorReport check_gradient(std::vector<T>& input, const std::vector<T>& analytic, Loss&& loss,
                           const GradientCheckOptions<T>& options) {
    if (analytic.size() != input.size())
        throw std::invalid_argument("check_gradient: gradient has " +
                                    std::to_string(analytic.size()) + " elements, input " +
                                    std::to_string(input.size()));
    ErrorReport report;
    const auto indices = elements_to_check(input.size(), options.max_elements, options.seed);
    for (const std::size_t i : indices) {
        const T original = input[i];
        const T plus = original + options.step;
        const T minus = original - options.step;
        input[i] = plus;
        const double loss_plus = loss();
        input[i] = minus;
        const double loss_minus = loss();
        input[i] = original;
        // Divide by the step actually taken: x +- step rounds in float.
        const double numeric = (loss_plus - loss_minus) / (double(plus) - double(minus));
        report.add(i, analytic[i], numeric, options.floor);
    }
    return report;
}

}  // namespace dp::test
