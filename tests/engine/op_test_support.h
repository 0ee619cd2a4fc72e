#pragma once

// What the op tests (tests/engine/test_ops_<family>.cpp, one executable per
// op family) share: the two ways to run an op on host vectors, the
// data-driven checks (a) to (c) below, and the helpers of the hand-computed
// tests. The ops of the backends are tested against the naive loops of
// engine/backend/reference/reference_ops.h:
//  (a) the reference ops' gradients match central finite differences in double;
//  (b) OneDnnBackend's forward and backward outputs match ReferenceBackend's;
//  (c) each backend's gradients match finite differences in float.
// (a) to (c) run every op case of a family (a struct per op with a shape,
// in its test file); each (check, op case) pair is one row of a
// data-driven test, so a failure names both.

#include "gradient_check.h"

#include "backend/onednn/onednn_backend.h"
#include "backend/reference/reference_backend.h"
#include "backend/reference/reference_ops.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace dp::op_test {

// Members of dp::op_test, so that a test file's `using namespace dp::op_test`
// brings them too.
using dp::Backend;
using dp::BatchNorm2dShape;
using dp::Conv2dShape;
using dp::DropoutConfig;
using dp::LinearShape;
using dp::NchwShape;
using dp::Pool2dShape;
namespace ref = dp::reference;

inline constexpr std::uint32_t kSeed = 20240607;

// Tensors by name: an op's inputs, or its outputs and gradients.
template <typename T>
using Tensors = std::map<std::string, std::vector<T>>;

template <typename T>
std::vector<T> uniform(std::size_t n, T low, T high, std::mt19937& rng) {
    std::uniform_real_distribution<T> distribution(low, high);
    std::vector<T> values(n);
    for (T& value : values) value = distribution(rng);
    return values;
}

// Outputs start as NaN, so an op that leaves an element unwritten, or that
// accumulates into its output instead of overwriting it, fails every check.
template <typename T>
std::vector<T> unwritten(std::size_t n) {
    return std::vector<T>(n, std::numeric_limits<T>::quiet_NaN());
}

// "2x3x7x7"
inline std::string dims(std::initializer_list<int> extents) {
    std::string text;
    for (const int extent : extents) {
        if (!text.empty()) text += 'x';
        text += std::to_string(extent);
    }
    return text;
}

// The failed checks of one test function, so that one QVERIFY2 reports all
// of them (every mismatching tensor of an op, not only the first).
class Failures {
public:
    void check(bool passed, const std::string& message) {
        if (!passed) text_ += "\n    " + message;
    }
    // Records a failure unless the worst relative error is within tolerance.
    void check(const dp::test::ErrorReport& report, double tolerance, const std::string& what,
               std::string_view actual_name = "actual",
               std::string_view expected_name = "expected") {
        check(report.worst_error <= tolerance,
              what + ": " + report.describe(actual_name, expected_name) + " > tolerance " +
                  std::to_string(tolerance));
    }
    bool empty() const { return text_.empty(); }
    const char* text() const { return text_.c_str(); }

private:
    std::string text_;
};

// Values that exact arithmetic gives (hand-computed tests): floats may differ
// from them by rounding only.
inline constexpr double kHandComputedTolerance = 1e-6;

inline void check_values(Failures& failures, const std::string& what,
                         const std::vector<float>& actual, const std::vector<float>& expected,
                         double tolerance = kHandComputedTolerance) {
    failures.check(dp::test::compare_elementwise(actual, expected, 1.0), tolerance, what);
}

// The statistics of a batch normalization forward: the batch's (or the
// synchronized batch's) mean and variance, and the running statistics after
// their update.
template <typename Vector>
struct BatchNormStats {
    Vector mean, var, running_mean, running_var;
};

// The gradients of a batch normalization backward.
template <typename Vector>
struct BatchNormGradients {
    Vector dx, dgamma, dbeta;
};

// ------------------------------------------------------------------ op runners
// Two ways to run the ops on host vectors, with the same member functions, so
// that each op case below is written once for both: ReferenceOps<T> calls the
// reference loops in any precision (the tests use double); BackendOps runs a
// dp::Backend in float, uploading the inputs and downloading the outputs.

template <typename T>
class ReferenceOps {
public:
    using Scalar = T;
    using Vector = std::vector<T>;

    Vector conv2d_forward(const Conv2dShape& s, const Vector& x, const Vector& w, const Vector& b) {
        Vector y = unwritten<T>(s.output_size());
        ref::conv2d_forward(s, x.data(), w.data(), b.data(), y.data());
        return y;
    }
    Vector conv2d_backward_data(const Conv2dShape& s, const Vector& dy, const Vector& w) {
        Vector dx = unwritten<T>(s.input_size());
        ref::conv2d_backward_data(s, dy.data(), w.data(), dx.data());
        return dx;
    }
    std::pair<Vector, Vector> conv2d_backward_weights(const Conv2dShape& s, const Vector& x,
                                                      const Vector& dy) {
        Vector dw = unwritten<T>(s.weight_size());
        Vector db = unwritten<T>(s.out_channels);
        ref::conv2d_backward_weights(s, x.data(), dy.data(), dw.data(), db.data());
        return {std::move(dw), std::move(db)};
    }

    Vector relu_forward(const Vector& x) {
        Vector y = unwritten<T>(x.size());
        ref::relu_forward(x.size(), x.data(), y.data());
        return y;
    }
    Vector relu_backward(const Vector& y, const Vector& dy) {
        Vector dx = unwritten<T>(y.size());
        ref::relu_backward(y.size(), y.data(), dy.data(), dx.data());
        return dx;
    }

    Vector avg_pool2d_forward(const Pool2dShape& s, const Vector& x) {
        Vector y = unwritten<T>(s.output_size());
        ref::avg_pool2d_forward(s, x.data(), y.data());
        return y;
    }
    Vector avg_pool2d_backward(const Pool2dShape& s, const Vector& dy) {
        Vector dx = unwritten<T>(s.input_size());
        ref::avg_pool2d_backward(s, dy.data(), dx.data());
        return dx;
    }
    Vector relu_avg_pool2d_forward(const Pool2dShape& s, const Vector& x) {
        Vector y = unwritten<T>(s.output_size());
        ref::relu_avg_pool2d_forward(s, x.data(), y.data());
        return y;
    }
    Vector relu_avg_pool2d_backward(const Pool2dShape& s, const Vector& x, const Vector& dy) {
        Vector dx = unwritten<T>(s.input_size());
        ref::relu_avg_pool2d_backward(s, x.data(), dy.data(), dx.data());
        return dx;
    }

    // The workspace is the reference's argmax indices, on the host.
    using Workspace = std::vector<std::byte>;
    std::pair<Vector, Workspace> max_pool2d_forward(const Pool2dShape& s, const Vector& x) {
        Vector y = unwritten<T>(s.output_size());
        Workspace workspace(ref::max_pool2d_workspace_size(s));
        ref::max_pool2d_forward(s, x.data(), y.data(), workspace.data());
        return {std::move(y), std::move(workspace)};
    }
    Vector max_pool2d_backward(const Pool2dShape& s, const Vector& dy, const Workspace& workspace) {
        Vector dx = unwritten<T>(s.input_size());
        ref::max_pool2d_backward(s, dy.data(), workspace.data(), dx.data());
        return dx;
    }

    Vector global_avg_pool2d_forward(const NchwShape& s, const Vector& x) {
        Vector y = unwritten<T>(std::size_t(s.batch) * s.channels);
        ref::global_avg_pool2d_forward(s, x.data(), y.data());
        return y;
    }
    Vector global_avg_pool2d_backward(const NchwShape& s, const Vector& dy) {
        Vector dx = unwritten<T>(s.size());
        ref::global_avg_pool2d_backward(s, dy.data(), dx.data());
        return dx;
    }

    Vector add(const Vector& a, const Vector& b) {
        Vector y = unwritten<T>(a.size());
        ref::add(a.size(), a.data(), b.data(), y.data());
        return y;
    }
    // dst + src, computed in place as Backend::accumulate does.
    Vector accumulate(Vector dst, const Vector& src) {
        ref::add(dst.size(), dst.data(), src.data(), dst.data());
        return dst;
    }
    Vector scale(Vector x, T factor) {
        ref::scale(x.size(), factor, x.data());
        return x;
    }

    // {y, mask}
    std::pair<Vector, Vector> dropout_forward(const DropoutConfig& config, const Vector& x) {
        Vector y = unwritten<T>(x.size()), mask = unwritten<T>(x.size());
        ref::dropout_forward(x.size(), config, x.data(), y.data(), mask.data());
        return {std::move(y), std::move(mask)};
    }
    std::pair<Vector, Vector> dropout2d_forward(const NchwShape& s, const DropoutConfig& config,
                                                const Vector& x) {
        Vector y = unwritten<T>(x.size()), mask = unwritten<T>(x.size());
        ref::dropout2d_forward(s, config, x.data(), y.data(), mask.data());
        return {std::move(y), std::move(mask)};
    }
    Vector dropout_backward(const Vector& mask, const Vector& dy) {
        Vector dx = unwritten<T>(mask.size());
        ref::dropout_backward(mask.size(), mask.data(), dy.data(), dx.data());
        return dx;
    }

    // {y, statistics}; the running statistics are updated from the given ones.
    std::pair<Vector, BatchNormStats<Vector>> batch_norm2d_forward_training(
        const BatchNorm2dShape& s, const Vector& x, const Vector& gamma, const Vector& beta,
        Vector running_mean, Vector running_var) {
        Vector y = unwritten<T>(x.size());
        BatchNormStats<Vector> stats{unwritten<T>(s.channels), unwritten<T>(s.channels),
                                     std::move(running_mean), std::move(running_var)};
        ref::batch_norm2d_forward_training(s, x.data(), gamma.data(), beta.data(), y.data(),
                                           stats.mean.data(), stats.var.data(),
                                           stats.running_mean.data(), stats.running_var.data());
        return {std::move(y), std::move(stats)};
    }
    Vector batch_norm2d_forward_given_stats(const BatchNorm2dShape& s, const Vector& x,
                                            const Vector& gamma, const Vector& beta,
                                            const Vector& mean, const Vector& var) {
        Vector y = unwritten<T>(x.size());
        ref::batch_norm2d_forward_given_stats(s, x.data(), gamma.data(), beta.data(), mean.data(),
                                              var.data(), y.data());
        return y;
    }
    BatchNormGradients<Vector> batch_norm2d_backward(const BatchNorm2dShape& s, const Vector& x,
                                                     const Vector& dy, const Vector& gamma,
                                                     const Vector& mean, const Vector& var) {
        BatchNormGradients<Vector> g{unwritten<T>(x.size()), unwritten<T>(s.channels),
                                     unwritten<T>(s.channels)};
        ref::batch_norm2d_backward(s, x.data(), dy.data(), gamma.data(), mean.data(), var.data(),
                                   g.dx.data(), g.dgamma.data(), g.dbeta.data());
        return g;
    }
    // {sum, sum_sq}; an empty shift is none.
    std::pair<Vector, Vector> batch_norm2d_sums(const BatchNorm2dShape& s, const Vector& x,
                                                const Vector& shift) {
        Vector sum = unwritten<T>(s.channels), sum_sq = unwritten<T>(s.channels);
        ref::batch_norm2d_sums(s, x.data(), shift.empty() ? nullptr : shift.data(), sum.data(),
                               sum_sq.data());
        return {std::move(sum), std::move(sum_sq)};
    }
    BatchNormStats<Vector> batch_norm2d_stats_from_sums(const BatchNorm2dShape& s,
                                                        std::int64_t count, const Vector& sum,
                                                        const Vector& sum_sq, const Vector& shift,
                                                        Vector running_mean, Vector running_var) {
        BatchNormStats<Vector> stats{unwritten<T>(s.channels), unwritten<T>(s.channels),
                                     std::move(running_mean), std::move(running_var)};
        ref::batch_norm2d_stats_from_sums(s, count, sum.data(), sum_sq.data(),
                                          shift.empty() ? nullptr : shift.data(),
                                          stats.mean.data(), stats.var.data(),
                                          stats.running_mean.data(), stats.running_var.data());
        return stats;
    }
    // {dgamma, dbeta}
    std::pair<Vector, Vector> batch_norm2d_backward_reduce(const BatchNorm2dShape& s,
                                                           const Vector& x, const Vector& dy,
                                                           const Vector& mean, const Vector& var) {
        Vector dgamma = unwritten<T>(s.channels), dbeta = unwritten<T>(s.channels);
        ref::batch_norm2d_backward_reduce(s, x.data(), dy.data(), mean.data(), var.data(),
                                          dgamma.data(), dbeta.data());
        return {std::move(dgamma), std::move(dbeta)};
    }
    Vector batch_norm2d_backward_elementwise(const BatchNorm2dShape& s, std::int64_t count,
                                             const Vector& x, const Vector& dy,
                                             const Vector& gamma, const Vector& mean,
                                             const Vector& var, const Vector& dgamma,
                                             const Vector& dbeta) {
        Vector dx = unwritten<T>(x.size());
        ref::batch_norm2d_backward_elementwise(s, count, x.data(), dy.data(), gamma.data(),
                                               mean.data(), var.data(), dgamma.data(),
                                               dbeta.data(), dx.data());
        return dx;
    }

    Vector linear_forward(const LinearShape& s, const Vector& x, const Vector& w, const Vector& b) {
        Vector y = unwritten<T>(s.output_size());
        ref::linear_forward(s, x.data(), w.data(), b.data(), y.data());
        return y;
    }
    Vector linear_backward_data(const LinearShape& s, const Vector& dy, const Vector& w) {
        Vector dx = unwritten<T>(s.input_size());
        ref::linear_backward_data(s, dy.data(), w.data(), dx.data());
        return dx;
    }
    std::pair<Vector, Vector> linear_backward_weights(const LinearShape& s, const Vector& x,
                                                      const Vector& dy) {
        Vector dw = unwritten<T>(s.weight_size());
        Vector db = unwritten<T>(s.out_features);
        ref::linear_backward_weights(s, x.data(), dy.data(), dw.data(), db.data());
        return {std::move(dw), std::move(db)};
    }

    // dlogits, when not null, is resized to the logits and receives the gradient.
    Backend::LossResult softmax_cross_entropy(int batch, int classes, const Vector& logits,
                                              const Vector& labels, Vector* dlogits,
                                              T grad_scale) {
        if (dlogits != nullptr) *dlogits = unwritten<T>(logits.size());
        return ref::softmax_cross_entropy(batch, classes, logits.data(), labels.data(),
                                          dlogits != nullptr ? dlogits->data() : nullptr,
                                          grad_scale);
    }

    Vector log_softmax_forward(int batch, int classes, const Vector& x) {
        Vector y = unwritten<T>(x.size());
        ref::log_softmax_forward(batch, classes, x.data(), y.data());
        return y;
    }
    Vector log_softmax_backward(int batch, int classes, const Vector& y, const Vector& dy) {
        Vector dx = unwritten<T>(y.size());
        ref::log_softmax_backward(batch, classes, y.data(), dy.data(), dx.data());
        return dx;
    }
    // dlog_probs, when not null, is resized to the log-probabilities and receives the gradient.
    Backend::LossResult nll_loss(int batch, int classes, const Vector& log_probs,
                                 const Vector& labels, Vector* dlog_probs, T grad_scale) {
        if (dlog_probs != nullptr) *dlog_probs = unwritten<T>(log_probs.size());
        return ref::nll_loss(batch, classes, log_probs.data(), labels.data(),
                             dlog_probs != nullptr ? dlog_probs->data() : nullptr, grad_scale);
    }
};

class BackendOps {
public:
    using Scalar = float;
    using Vector = std::vector<float>;

    explicit BackendOps(Backend& backend) : backend_(backend) {}

    std::string name() const { return backend_.name(); }

    Vector conv2d_forward(const Conv2dShape& s, const Vector& x, const Vector& w, const Vector& b) {
        const DeviceVector device_x = upload(x), device_w = upload(w), device_b = upload(b);
        const DeviceVector device_y = output(s.output_size());
        backend_.conv2d_forward(s, device_x.data(), device_w.data(), device_b.data(),
                                device_y.data());
        return download(device_y);
    }
    Vector conv2d_backward_data(const Conv2dShape& s, const Vector& dy, const Vector& w) {
        const DeviceVector device_dy = upload(dy), device_w = upload(w);
        const DeviceVector device_dx = output(s.input_size());
        backend_.conv2d_backward_data(s, device_dy.data(), device_w.data(), device_dx.data());
        return download(device_dx);
    }
    std::pair<Vector, Vector> conv2d_backward_weights(const Conv2dShape& s, const Vector& x,
                                                      const Vector& dy) {
        const DeviceVector device_x = upload(x), device_dy = upload(dy);
        const DeviceVector device_dw = output(s.weight_size());
        const DeviceVector device_db = output(s.out_channels);
        backend_.conv2d_backward_weights(s, device_x.data(), device_dy.data(), device_dw.data(),
                                         device_db.data());
        return {download(device_dw), download(device_db)};
    }

    Vector relu_forward(const Vector& x) {
        const DeviceVector device_x = upload(x), device_y = output(x.size());
        backend_.relu_forward(x.size(), device_x.data(), device_y.data());
        return download(device_y);
    }
    Vector relu_backward(const Vector& y, const Vector& dy) {
        const DeviceVector device_y = upload(y), device_dy = upload(dy);
        const DeviceVector device_dx = output(y.size());
        backend_.relu_backward(y.size(), device_y.data(), device_dy.data(), device_dx.data());
        return download(device_dx);
    }

    Vector avg_pool2d_forward(const Pool2dShape& s, const Vector& x) {
        const DeviceVector device_x = upload(x), device_y = output(s.output_size());
        backend_.avg_pool2d_forward(s, device_x.data(), device_y.data());
        return download(device_y);
    }
    Vector avg_pool2d_backward(const Pool2dShape& s, const Vector& dy) {
        const DeviceVector device_dy = upload(dy), device_dx = output(s.input_size());
        backend_.avg_pool2d_backward(s, device_dy.data(), device_dx.data());
        return download(device_dx);
    }
    Vector relu_avg_pool2d_forward(const Pool2dShape& s, const Vector& x) {
        const DeviceVector device_x = upload(x), device_y = output(s.output_size());
        backend_.relu_avg_pool2d_forward(s, device_x.data(), device_y.data());
        return download(device_y);
    }
    Vector relu_avg_pool2d_backward(const Pool2dShape& s, const Vector& x, const Vector& dy) {
        const DeviceVector device_x = upload(x), device_dy = upload(dy);
        const DeviceVector device_dx = output(s.input_size());
        backend_.relu_avg_pool2d_backward(s, device_x.data(), device_dy.data(), device_dx.data());
        return download(device_dx);
    }

    // The workspace stays on the device: its contents are the backend's.
    struct Workspace;
    std::size_t max_pool2d_workspace_size(const Pool2dShape& s) {
        return backend_.max_pool2d_workspace_size(s);
    }
    std::pair<Vector, Workspace> max_pool2d_forward(const Pool2dShape& s, const Vector& x);
    Vector max_pool2d_backward(const Pool2dShape& s, const Vector& dy, const Workspace& workspace);

    Vector global_avg_pool2d_forward(const NchwShape& s, const Vector& x) {
        const DeviceVector device_x = upload(x);
        const DeviceVector device_y = output(std::size_t(s.batch) * s.channels);
        backend_.global_avg_pool2d_forward(s, device_x.data(), device_y.data());
        return download(device_y);
    }
    Vector global_avg_pool2d_backward(const NchwShape& s, const Vector& dy) {
        const DeviceVector device_dy = upload(dy), device_dx = output(s.size());
        backend_.global_avg_pool2d_backward(s, device_dy.data(), device_dx.data());
        return download(device_dx);
    }

    Vector add(const Vector& a, const Vector& b) {
        const DeviceVector device_a = upload(a), device_b = upload(b), device_y = output(a.size());
        backend_.add(a.size(), device_a.data(), device_b.data(), device_y.data());
        return download(device_y);
    }
    Vector accumulate(const Vector& dst, const Vector& src) {
        const DeviceVector device_dst = upload(dst), device_src = upload(src);
        backend_.accumulate(dst.size(), device_src.data(), device_dst.data());
        return download(device_dst);
    }
    Vector scale(const Vector& x, float factor) {
        const DeviceVector device_x = upload(x);
        backend_.scale(x.size(), factor, device_x.data());
        return download(device_x);
    }

    // {y, mask}
    std::pair<Vector, Vector> dropout_forward(const DropoutConfig& config, const Vector& x) {
        const DeviceVector device_x = upload(x);
        const DeviceVector device_y = output(x.size()), device_mask = output(x.size());
        backend_.dropout_forward(x.size(), config, device_x.data(), device_y.data(),
                                 device_mask.data());
        return {download(device_y), download(device_mask)};
    }
    std::pair<Vector, Vector> dropout2d_forward(const NchwShape& s, const DropoutConfig& config,
                                                const Vector& x) {
        const DeviceVector device_x = upload(x);
        const DeviceVector device_y = output(x.size()), device_mask = output(x.size());
        backend_.dropout2d_forward(s, config, device_x.data(), device_y.data(),
                                   device_mask.data());
        return {download(device_y), download(device_mask)};
    }
    Vector dropout_backward(const Vector& mask, const Vector& dy) {
        const DeviceVector device_mask = upload(mask), device_dy = upload(dy);
        const DeviceVector device_dx = output(mask.size());
        backend_.dropout_backward(mask.size(), device_mask.data(), device_dy.data(),
                                  device_dx.data());
        return download(device_dx);
    }

    // relu: Backend::batch_norm2d_relu_forward_training, the ReLU fused.
    std::pair<Vector, BatchNormStats<Vector>> batch_norm2d_forward_training(
        const BatchNorm2dShape& s, const Vector& x, const Vector& gamma, const Vector& beta,
        const Vector& running_mean, const Vector& running_var, bool relu = false) {
        const DeviceVector device_x = upload(x), device_gamma = upload(gamma),
                           device_beta = upload(beta);
        const DeviceVector device_running_mean = upload(running_mean),
                           device_running_var = upload(running_var);
        const DeviceVector device_y = output(x.size()), device_mean = output(s.channels),
                           device_var = output(s.channels);
        (backend_.*(relu ? &Backend::batch_norm2d_relu_forward_training
                         : &Backend::batch_norm2d_forward_training))(
            s, device_x.data(), device_gamma.data(), device_beta.data(), device_y.data(),
            device_mean.data(), device_var.data(), device_running_mean.data(),
            device_running_var.data());
        return {download(device_y),
                {download(device_mean), download(device_var), download(device_running_mean),
                 download(device_running_var)}};
    }
    Vector batch_norm2d_forward_given_stats(const BatchNorm2dShape& s, const Vector& x,
                                            const Vector& gamma, const Vector& beta,
                                            const Vector& mean, const Vector& var) {
        const DeviceVector device_x = upload(x), device_gamma = upload(gamma),
                           device_beta = upload(beta), device_mean = upload(mean),
                           device_var = upload(var);
        const DeviceVector device_y = output(x.size());
        backend_.batch_norm2d_forward_given_stats(s, device_x.data(), device_gamma.data(),
                                                  device_beta.data(), device_mean.data(),
                                                  device_var.data(), device_y.data());
        return download(device_y);
    }
    BatchNormGradients<Vector> batch_norm2d_backward(const BatchNorm2dShape& s, const Vector& x,
                                                     const Vector& dy, const Vector& gamma,
                                                     const Vector& mean, const Vector& var) {
        const DeviceVector device_x = upload(x), device_dy = upload(dy),
                           device_gamma = upload(gamma), device_mean = upload(mean),
                           device_var = upload(var);
        const DeviceVector device_dx = output(x.size()), device_dgamma = output(s.channels),
                           device_dbeta = output(s.channels);
        backend_.batch_norm2d_backward(s, device_x.data(), device_dy.data(), device_gamma.data(),
                                       device_mean.data(), device_var.data(), device_dx.data(),
                                       device_dgamma.data(), device_dbeta.data());
        return {download(device_dx), download(device_dgamma), download(device_dbeta)};
    }
    // Backend::batch_norm2d_relu_backward, y the fused forward's output.
    BatchNormGradients<Vector> batch_norm2d_relu_backward(const BatchNorm2dShape& s,
                                                          const Vector& x, const Vector& y,
                                                          const Vector& dy, const Vector& gamma,
                                                          const Vector& mean, const Vector& var) {
        const DeviceVector device_x = upload(x), device_y = upload(y), device_dy = upload(dy),
                           device_gamma = upload(gamma), device_mean = upload(mean),
                           device_var = upload(var);
        const DeviceVector device_dx = output(x.size()), device_dgamma = output(s.channels),
                           device_dbeta = output(s.channels);
        backend_.batch_norm2d_relu_backward(s, device_x.data(), device_y.data(), device_dy.data(),
                                            device_gamma.data(), device_mean.data(),
                                            device_var.data(), device_dx.data(),
                                            device_dgamma.data(), device_dbeta.data());
        return {download(device_dx), download(device_dgamma), download(device_dbeta)};
    }
    // {sum, sum_sq}; an empty shift is none.
    std::pair<Vector, Vector> batch_norm2d_sums(const BatchNorm2dShape& s, const Vector& x,
                                                const Vector& shift) {
        const DeviceVector device_x = upload(x), device_shift = upload(shift);
        const DeviceVector device_sum = output(s.channels), device_sum_sq = output(s.channels);
        backend_.batch_norm2d_sums(s, device_x.data(),
                                   shift.empty() ? nullptr : device_shift.data(),
                                   device_sum.data(), device_sum_sq.data());
        return {download(device_sum), download(device_sum_sq)};
    }
    BatchNormStats<Vector> batch_norm2d_stats_from_sums(const BatchNorm2dShape& s,
                                                        std::int64_t count, const Vector& sum,
                                                        const Vector& sum_sq, const Vector& shift,
                                                        const Vector& running_mean,
                                                        const Vector& running_var) {
        const DeviceVector device_sum = upload(sum), device_sum_sq = upload(sum_sq),
                           device_shift = upload(shift);
        const DeviceVector device_running_mean = upload(running_mean),
                           device_running_var = upload(running_var);
        const DeviceVector device_mean = output(s.channels), device_var = output(s.channels);
        backend_.batch_norm2d_stats_from_sums(
            s, count, device_sum.data(), device_sum_sq.data(),
            shift.empty() ? nullptr : device_shift.data(), device_mean.data(), device_var.data(),
            device_running_mean.data(), device_running_var.data());
        return {download(device_mean), download(device_var), download(device_running_mean),
                download(device_running_var)};
    }
    // {dgamma, dbeta}
    std::pair<Vector, Vector> batch_norm2d_backward_reduce(const BatchNorm2dShape& s,
                                                           const Vector& x, const Vector& dy,
                                                           const Vector& mean, const Vector& var) {
        const DeviceVector device_x = upload(x), device_dy = upload(dy),
                           device_mean = upload(mean), device_var = upload(var);
        const DeviceVector device_dgamma = output(s.channels), device_dbeta = output(s.channels);
        backend_.batch_norm2d_backward_reduce(s, device_x.data(), device_dy.data(),
                                              device_mean.data(), device_var.data(),
                                              device_dgamma.data(), device_dbeta.data());
        return {download(device_dgamma), download(device_dbeta)};
    }
    Vector batch_norm2d_backward_elementwise(const BatchNorm2dShape& s, std::int64_t count,
                                             const Vector& x, const Vector& dy,
                                             const Vector& gamma, const Vector& mean,
                                             const Vector& var, const Vector& dgamma,
                                             const Vector& dbeta) {
        const DeviceVector device_x = upload(x), device_dy = upload(dy),
                           device_gamma = upload(gamma), device_mean = upload(mean),
                           device_var = upload(var), device_dgamma = upload(dgamma),
                           device_dbeta = upload(dbeta);
        const DeviceVector device_dx = output(x.size());
        backend_.batch_norm2d_backward_elementwise(
            s, count, device_x.data(), device_dy.data(), device_gamma.data(), device_mean.data(),
            device_var.data(), device_dgamma.data(), device_dbeta.data(), device_dx.data());
        return download(device_dx);
    }

    Vector linear_forward(const LinearShape& s, const Vector& x, const Vector& w, const Vector& b) {
        const DeviceVector device_x = upload(x), device_w = upload(w), device_b = upload(b);
        const DeviceVector device_y = output(s.output_size());
        backend_.linear_forward(s, device_x.data(), device_w.data(), device_b.data(),
                                device_y.data());
        return download(device_y);
    }
    Vector linear_backward_data(const LinearShape& s, const Vector& dy, const Vector& w) {
        const DeviceVector device_dy = upload(dy), device_w = upload(w);
        const DeviceVector device_dx = output(s.input_size());
        backend_.linear_backward_data(s, device_dy.data(), device_w.data(), device_dx.data());
        return download(device_dx);
    }
    std::pair<Vector, Vector> linear_backward_weights(const LinearShape& s, const Vector& x,
                                                      const Vector& dy) {
        const DeviceVector device_x = upload(x), device_dy = upload(dy);
        const DeviceVector device_dw = output(s.weight_size());
        const DeviceVector device_db = output(s.out_features);
        backend_.linear_backward_weights(s, device_x.data(), device_dy.data(), device_dw.data(),
                                         device_db.data());
        return {download(device_dw), download(device_db)};
    }

    // dlogits, when not null, is resized to the logits and receives the gradient.
    Backend::LossResult softmax_cross_entropy(int batch, int classes, const Vector& logits,
                                              const Vector& labels, Vector* dlogits,
                                              float grad_scale) {
        const DeviceVector device_logits = upload(logits), device_labels = upload(labels);
        if (dlogits == nullptr)
            return backend_.softmax_cross_entropy(batch, classes, device_logits.data(),
                                                  device_labels.data(), nullptr, grad_scale);
        const DeviceVector device_dlogits = output(logits.size());
        const Backend::LossResult result =
            backend_.softmax_cross_entropy(batch, classes, device_logits.data(),
                                           device_labels.data(), device_dlogits.data(), grad_scale);
        *dlogits = download(device_dlogits);
        return result;
    }

    Vector log_softmax_forward(int batch, int classes, const Vector& x) {
        const DeviceVector device_x = upload(x), device_y = output(x.size());
        backend_.log_softmax_forward(batch, classes, device_x.data(), device_y.data());
        return download(device_y);
    }
    Vector log_softmax_backward(int batch, int classes, const Vector& y, const Vector& dy) {
        const DeviceVector device_y = upload(y), device_dy = upload(dy);
        const DeviceVector device_dx = output(y.size());
        backend_.log_softmax_backward(batch, classes, device_y.data(), device_dy.data(),
                                      device_dx.data());
        return download(device_dx);
    }
    // dlog_probs, when not null, is resized to the log-probabilities and receives the gradient.
    Backend::LossResult nll_loss(int batch, int classes, const Vector& log_probs,
                                 const Vector& labels, Vector* dlog_probs, float grad_scale) {
        const DeviceVector device_log_probs = upload(log_probs), device_labels = upload(labels);
        if (dlog_probs == nullptr)
            return backend_.nll_loss(batch, classes, device_log_probs.data(),
                                     device_labels.data(), nullptr, grad_scale);
        const DeviceVector device_dlog_probs = output(log_probs.size());
        const Backend::LossResult result =
            backend_.nll_loss(batch, classes, device_log_probs.data(), device_labels.data(),
                              device_dlog_probs.data(), grad_scale);
        *dlog_probs = download(device_dlog_probs);
        return result;
    }

    Vector sgd_update(float lr, const Vector& param, const Vector& grad) {
        const DeviceVector device_param = upload(param), device_grad = upload(grad);
        backend_.sgd_update(param.size(), lr, device_param.data(), device_grad.data());
        return download(device_param);
    }

    // The memory ops themselves.
    Vector round_trip(const Vector& host) { return download(upload(host)); }
    Vector filled(std::size_t n, float value) {
        const DeviceVector device = output(n);
        backend_.fill(device.data(), n, value);
        return download(device);
    }
    Vector uploaded_labels(const std::vector<std::int32_t>& labels) {
        const DeviceVector device = output(labels.size());
        backend_.upload_labels(labels.data(), device.data(), labels.size());
        return download(device);
    }

private:
    struct DeviceVector {
        dp::DeviceBuffer buffer;
        std::size_t size;
        float* data() const { return buffer.get(); }
    };

    // An empty vector (an absent optional input) uploads nothing: its data()
    // may be null, which memcpy must not get even for 0 bytes.
    DeviceVector upload(const Vector& host) {
        DeviceVector device{backend_.allocate(host.size()), host.size()};
        if (!host.empty()) backend_.upload(host.data(), device.data(), host.size());
        return device;
    }
    DeviceVector output(std::size_t size) {
        DeviceVector device{backend_.allocate(size), size};
        backend_.fill(device.data(), size, std::numeric_limits<float>::quiet_NaN());
        return device;
    }
    Vector download(const DeviceVector& device) {
        backend_.synchronize();
        Vector host(device.size);
        backend_.download(device.data(), host.data(), device.size);
        return host;
    }

    Backend& backend_;
};

struct BackendOps::Workspace {
    DeviceVector buffer;
};

inline std::pair<BackendOps::Vector, BackendOps::Workspace> BackendOps::max_pool2d_forward(
    const Pool2dShape& s, const Vector& x) {
    const std::size_t bytes = backend_.max_pool2d_workspace_size(s);
    Workspace workspace{output((bytes + sizeof(float) - 1) / sizeof(float))};
    const DeviceVector device_x = upload(x), device_y = output(s.output_size());
    backend_.max_pool2d_forward(s, device_x.data(), device_y.data(), workspace.buffer.data());
    return {download(device_y), std::move(workspace)};
}

inline BackendOps::Vector BackendOps::max_pool2d_backward(const Pool2dShape& s, const Vector& dy,
                                                          const Workspace& workspace) {
    const DeviceVector device_dy = upload(dy), device_dx = output(s.input_size());
    backend_.max_pool2d_backward(s, device_dy.data(), workspace.buffer.data(), device_dx.data());
    return download(device_dx);
}

// -------------------------------------------------------------------- op cases
// Each op case (a struct in its family's test file, with the family's list of
// cases) holds a shape and says, once for every runner: how to make
// random inputs, the forward output y, and the backward pass given dy as the
// gradients of the differentiable inputs, keyed by the input's name. It also
// states the tolerance of (b), the largest relative error (see
// dp::test::relative_error; errors of values below magnitude 1 are absolute)
// between a fast backend and ReferenceBackend, and why it is that.

// Inputs at least 0.1 away from relu's kink at 0, farther than any step.
template <typename T>
std::vector<T> away_from_zero(std::size_t n, std::mt19937& rng) {
    std::vector<T> x = uniform<T>(n, T(0.1), T(1), rng);
    std::bernoulli_distribution negative(0.5);
    for (T& value : x)
        if (negative(rng)) value = -value;
    return x;
}

inline std::string pool2d_label(std::string_view op, const Pool2dShape& shape) {
    return std::string(op) + " x " +
           dims({shape.batch, shape.channels, shape.in_h, shape.in_w}) + " kernel " +
           std::to_string(shape.kernel) + " stride " + std::to_string(shape.stride) +
           (shape.pad != 0 ? " pad " + std::to_string(shape.pad) : "");
}

inline std::string nchw_label(std::string_view op, const NchwShape& shape) {
    return std::string(op) + " x " + dims({shape.batch, shape.channels, shape.h, shape.w});
}

inline std::string batch_norm2d_label(std::string_view op, const BatchNorm2dShape& shape) {
    std::string label = std::string(op) + " x " +
                        dims({shape.batch, shape.channels, shape.h, shape.w});
    if (shape.eps != BatchNorm2dShape{}.eps) label += " eps " + std::to_string(shape.eps);
    if (shape.momentum != BatchNorm2dShape{}.momentum)
        label += " momentum " + std::to_string(shape.momentum);
    return label;
}

// The elements [index * size, (index + 1) * size) of v: a replica's shard.
template <typename T>
std::vector<T> slice(const std::vector<T>& v, std::size_t index, std::size_t size) {
    return {v.begin() + index * size, v.begin() + (index + 1) * size};
}

// sum += v: the all-reduce of a synchronized batch norm, on the host.
template <typename T>
void add_to(std::vector<T>& sum, const std::vector<T>& v) {
    for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += v[i];
}

template <typename T>
void append(std::vector<T>& to, const std::vector<T>& v) {
    to.insert(to.end(), v.begin(), v.end());
}

// The data-driven tests (a) to (c) have one row per op case.
template <typename OpCase>
void add_op_case_rows(const std::vector<OpCase>& cases) {
    QTest::addColumn<int>("op_case");
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const std::string label = std::visit([](const auto& op) { return op.label(); },
                                             cases[i]);
        QTest::newRow(label.c_str()) << int(i);
    }
}

// Calls visitor(op) with the op case of the current row.
template <typename OpCase, typename Visitor>
void visit_current_op_case(const std::vector<OpCase>& cases, Visitor&& visitor) {
    QFETCH(int, op_case);
    std::visit(visitor, cases.at(op_case));
}

// ------------------------------------------------------------------ checks

// The finite-difference checks (a) and (c), the same for every op: errors
// relative, below magnitude 1 absolute. Only the softmaxes and batch norm
// are not piecewise linear in their inputs, so only they have truncation
// error, ~step^2 / 6 x the third derivative. (Max pooling and relu have
// kinks, kept farther than a step from the inputs.) The rounding error of
// L, ~(unit roundoff) x (magnitude of the outputs a step changes), is divided
// by 2 step.
// Double: step 1e-5 puts both near 1e-10; the worst error seen is 7e-9.
// Float: a large step, 1e-2, keeps the rounding error of the loss below 1e-3
// of the gradient; the worst error seen is 5e-4 (log_softmax, inputs +-100;
// batch norm 3e-4).
template <typename T>
dp::test::GradientCheckOptions<T> finite_difference_options() {
    if constexpr (std::is_same_v<T, double>)
        return {.step = 1e-5, .tolerance = 1e-7, .floor = 1, .seed = kSeed};
    else
        return {.step = 1e-2f, .tolerance = 5e-3, .floor = 1, .seed = kSeed};
}

// (a) and (c): every gradient the op's backward returns for dy = r matches
// the central differences of L = sum(forward(inputs) * r).
template <typename Op, typename Ops>
void verify_gradients(const Op& op, Ops& ops) {
    using T = typename Ops::Scalar;
    const dp::test::GradientCheckOptions<T> options = finite_difference_options<T>();
    std::mt19937 rng(kSeed);
    Tensors<T> inputs = op.template make_inputs<T>(rng);
    const std::vector<T> r = uniform<T>(op.forward(ops, inputs).size(), -1, 1, rng);
    const auto loss = [&] { return dp::test::weighted_sum(op.forward(ops, inputs), r); };
    Failures failures;
    for (const auto& [name, gradient] : op.backward(ops, inputs, r)) {
        const auto report = dp::test::check_gradient(inputs.at(name), gradient, loss, options);
        failures.check(report, options.tolerance, op.label() + " d" + name, "analytic",
                       "numeric");
    }
    QVERIFY2(failures.empty(), failures.text());
}

// y and the gradients of an op, keyed "y", "dx", "dw", ...
template <typename Op>
Tensors<float> forward_and_backward(const Op& op, BackendOps& ops, const Tensors<float>& inputs,
                                    const std::vector<float>& dy) {
    Tensors<float> outputs{{"y", op.forward(ops, inputs)}};
    for (auto& [name, gradient] : op.backward(ops, inputs, dy))
        outputs["d" + name] = std::move(gradient);
    return outputs;
}

// (b): the op's forward and backward outputs on `fast` match those on `reference`.
template <typename Op>
void verify_matches_reference(const Op& op, BackendOps& fast, BackendOps& reference) {
    std::mt19937 rng(kSeed);
    const Tensors<float> inputs = op.template make_inputs<float>(rng);
    const std::vector<float> dy = uniform<float>(op.forward(reference, inputs).size(), -1, 1, rng);
    const Tensors<float> expected = forward_and_backward(op, reference, inputs, dy);
    const Tensors<float> actual = forward_and_backward(op, fast, inputs, dy);
    Failures failures;
    for (const auto& [name, expected_values] : expected)
        failures.check(dp::test::compare_elementwise(actual.at(name), expected_values, 1.0),
                       op.tolerance_vs_reference, op.label() + " " + name, fast.name(),
                       reference.name());
    QVERIFY2(failures.empty(), failures.text());
}

// The two CPU backends every op test runs, as runners.
class CpuBackends {
protected:
    std::vector<BackendOps*> backends() { return {&reference_, &onednn_}; }

    dp::ReferenceBackend reference_backend_;
    dp::OneDnnBackend onednn_backend_;
    BackendOps reference_{reference_backend_};
    BackendOps onednn_{onednn_backend_};
};

}  // namespace dp::op_test
