// Tests of the ops of the backends against the naive loops of
// engine/backend/reference/reference_ops.h:
//  (a) the reference ops' gradients match central finite differences in double;
//  (b) OneDnnBackend's forward and backward outputs match ReferenceBackend's;
//  (c) each backend's gradients match finite differences in float;
// plus hand-computed values, arg-max and max-pooling ties, exact SGD, add
// and memory ops, dropout's counter-based draws, batch norm's statistics, and
// synchronized batch norm against batch norm of the whole batch.
// (a) to (c) run every op on several shapes; each (check, op shape) pair is
// one row of a data-driven test, so a failure names both.

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

namespace {

using dp::Backend;
using dp::BatchNorm2dShape;
using dp::Conv2dShape;
using dp::DropoutConfig;
using dp::LinearShape;
using dp::NchwShape;
using dp::Pool2dShape;
namespace ref = dp::reference;

constexpr std::uint32_t kSeed = 20240607;

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
std::string dims(std::initializer_list<int> extents) {
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
constexpr double kHandComputedTolerance = 1e-6;

void check_values(Failures& failures, const std::string& what, const std::vector<float>& actual,
                  const std::vector<float>& expected,
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
        Vector y = unwritten<T>(ref::conv2d_output_size(s));
        ref::conv2d_forward(s, x.data(), w.data(), b.data(), y.data());
        return y;
    }
    Vector conv2d_backward_data(const Conv2dShape& s, const Vector& dy, const Vector& w) {
        Vector dx = unwritten<T>(ref::conv2d_input_size(s));
        ref::conv2d_backward_data(s, dy.data(), w.data(), dx.data());
        return dx;
    }
    std::pair<Vector, Vector> conv2d_backward_weights(const Conv2dShape& s, const Vector& x,
                                                      const Vector& dy) {
        Vector dw = unwritten<T>(ref::conv2d_weight_size(s));
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
        Vector y = unwritten<T>(ref::pool2d_output_size(s));
        ref::avg_pool2d_forward(s, x.data(), y.data());
        return y;
    }
    Vector avg_pool2d_backward(const Pool2dShape& s, const Vector& dy) {
        Vector dx = unwritten<T>(ref::pool2d_input_size(s));
        ref::avg_pool2d_backward(s, dy.data(), dx.data());
        return dx;
    }

    // The workspace is the reference's argmax indices, on the host.
    using Workspace = std::vector<std::byte>;
    std::pair<Vector, Workspace> max_pool2d_forward(const Pool2dShape& s, const Vector& x) {
        Vector y = unwritten<T>(ref::pool2d_output_size(s));
        Workspace workspace(ref::max_pool2d_workspace_size(s));
        ref::max_pool2d_forward(s, x.data(), y.data(), workspace.data());
        return {std::move(y), std::move(workspace)};
    }
    Vector max_pool2d_backward(const Pool2dShape& s, const Vector& dy, const Workspace& workspace) {
        Vector dx = unwritten<T>(ref::pool2d_input_size(s));
        ref::max_pool2d_backward(s, dy.data(), workspace.data(), dx.data());
        return dx;
    }

    Vector global_avg_pool2d_forward(const NchwShape& s, const Vector& x) {
        Vector y = unwritten<T>(std::size_t(s.batch) * s.channels);
        ref::global_avg_pool2d_forward(s, x.data(), y.data());
        return y;
    }
    Vector global_avg_pool2d_backward(const NchwShape& s, const Vector& dy) {
        Vector dx = unwritten<T>(ref::nchw_size(s));
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
        Vector y = unwritten<T>(ref::linear_output_size(s));
        ref::linear_forward(s, x.data(), w.data(), b.data(), y.data());
        return y;
    }
    Vector linear_backward_data(const LinearShape& s, const Vector& dy, const Vector& w) {
        Vector dx = unwritten<T>(ref::linear_input_size(s));
        ref::linear_backward_data(s, dy.data(), w.data(), dx.data());
        return dx;
    }
    std::pair<Vector, Vector> linear_backward_weights(const LinearShape& s, const Vector& x,
                                                      const Vector& dy) {
        Vector dw = unwritten<T>(ref::linear_weight_size(s));
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
        const DeviceVector device_y = output(ref::conv2d_output_size(s));
        backend_.conv2d_forward(s, device_x.data(), device_w.data(), device_b.data(),
                                device_y.data());
        return download(device_y);
    }
    Vector conv2d_backward_data(const Conv2dShape& s, const Vector& dy, const Vector& w) {
        const DeviceVector device_dy = upload(dy), device_w = upload(w);
        const DeviceVector device_dx = output(ref::conv2d_input_size(s));
        backend_.conv2d_backward_data(s, device_dy.data(), device_w.data(), device_dx.data());
        return download(device_dx);
    }
    std::pair<Vector, Vector> conv2d_backward_weights(const Conv2dShape& s, const Vector& x,
                                                      const Vector& dy) {
        const DeviceVector device_x = upload(x), device_dy = upload(dy);
        const DeviceVector device_dw = output(ref::conv2d_weight_size(s));
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
        const DeviceVector device_x = upload(x), device_y = output(ref::pool2d_output_size(s));
        backend_.avg_pool2d_forward(s, device_x.data(), device_y.data());
        return download(device_y);
    }
    Vector avg_pool2d_backward(const Pool2dShape& s, const Vector& dy) {
        const DeviceVector device_dy = upload(dy), device_dx = output(ref::pool2d_input_size(s));
        backend_.avg_pool2d_backward(s, device_dy.data(), device_dx.data());
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
        const DeviceVector device_dy = upload(dy), device_dx = output(ref::nchw_size(s));
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

    std::pair<Vector, BatchNormStats<Vector>> batch_norm2d_forward_training(
        const BatchNorm2dShape& s, const Vector& x, const Vector& gamma, const Vector& beta,
        const Vector& running_mean, const Vector& running_var) {
        const DeviceVector device_x = upload(x), device_gamma = upload(gamma),
                           device_beta = upload(beta);
        const DeviceVector device_running_mean = upload(running_mean),
                           device_running_var = upload(running_var);
        const DeviceVector device_y = output(x.size()), device_mean = output(s.channels),
                           device_var = output(s.channels);
        backend_.batch_norm2d_forward_training(
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
        const DeviceVector device_y = output(ref::linear_output_size(s));
        backend_.linear_forward(s, device_x.data(), device_w.data(), device_b.data(),
                                device_y.data());
        return download(device_y);
    }
    Vector linear_backward_data(const LinearShape& s, const Vector& dy, const Vector& w) {
        const DeviceVector device_dy = upload(dy), device_w = upload(w);
        const DeviceVector device_dx = output(ref::linear_input_size(s));
        backend_.linear_backward_data(s, device_dy.data(), device_w.data(), device_dx.data());
        return download(device_dx);
    }
    std::pair<Vector, Vector> linear_backward_weights(const LinearShape& s, const Vector& x,
                                                      const Vector& dy) {
        const DeviceVector device_x = upload(x), device_dy = upload(dy);
        const DeviceVector device_dw = output(ref::linear_weight_size(s));
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

std::pair<BackendOps::Vector, BackendOps::Workspace> BackendOps::max_pool2d_forward(
    const Pool2dShape& s, const Vector& x) {
    const std::size_t bytes = backend_.max_pool2d_workspace_size(s);
    Workspace workspace{output((bytes + sizeof(float) - 1) / sizeof(float))};
    const DeviceVector device_x = upload(x), device_y = output(ref::pool2d_output_size(s));
    backend_.max_pool2d_forward(s, device_x.data(), device_y.data(), workspace.buffer.data());
    return {download(device_y), std::move(workspace)};
}

BackendOps::Vector BackendOps::max_pool2d_backward(const Pool2dShape& s, const Vector& dy,
                                                   const Workspace& workspace) {
    const DeviceVector device_dy = upload(dy), device_dx = output(ref::pool2d_input_size(s));
    backend_.max_pool2d_backward(s, device_dy.data(), workspace.buffer.data(), device_dx.data());
    return download(device_dx);
}

// -------------------------------------------------------------------- op cases
// Each op case holds a shape and says, once for every runner: how to make
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

std::string pool2d_label(std::string_view op, const Pool2dShape& shape) {
    return std::string(op) + " x " +
           dims({shape.batch, shape.channels, shape.in_h, shape.in_w}) + " kernel " +
           std::to_string(shape.kernel) + " stride " + std::to_string(shape.stride) +
           (shape.pad != 0 ? " pad " + std::to_string(shape.pad) : "");
}

std::string nchw_label(std::string_view op, const NchwShape& shape) {
    return std::string(op) + " x " + dims({shape.batch, shape.channels, shape.h, shape.w});
}

std::string batch_norm2d_label(std::string_view op, const BatchNorm2dShape& shape) {
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

struct Conv2dOp {
    // A fast backend sums the C*k*k (forward), O*k*k (backward data) or
    // N*OH*OW (backward weights) products of each output in its own blocked
    // order: float rounding of up to a few hundred terms (oneDNN: <= 4e-6).
    static constexpr double tolerance_vs_reference = 1e-4;
    Conv2dShape shape;

    std::string label() const {
        return "conv2d x " + dims({shape.batch, shape.in_channels, shape.in_h, shape.in_w}) +
               " w " + dims({shape.out_channels, shape.in_channels, shape.kernel, shape.kernel}) +
               " stride " + std::to_string(shape.stride) + " pad " + std::to_string(shape.pad);
    }
    template <typename T>
    Tensors<T> make_inputs(std::mt19937& rng) const {
        return {{"x", uniform<T>(ref::conv2d_input_size(shape), -1, 1, rng)},
                {"w", uniform<T>(ref::conv2d_weight_size(shape), -1, 1, rng)},
                {"b", uniform<T>(shape.out_channels, -1, 1, rng)}};
    }
    template <typename Ops, typename T = typename Ops::Scalar>
    std::vector<T> forward(Ops& ops, const Tensors<T>& in) const {
        return ops.conv2d_forward(shape, in.at("x"), in.at("w"), in.at("b"));
    }
    template <typename Ops, typename T = typename Ops::Scalar>
    Tensors<T> backward(Ops& ops, const Tensors<T>& in, const std::vector<T>& dy) const {
        auto [dw, db] = ops.conv2d_backward_weights(shape, in.at("x"), dy);
        return {{"x", ops.conv2d_backward_data(shape, dy, in.at("w"))},
                {"w", std::move(dw)},
                {"b", std::move(db)}};
    }
};

struct ReluOp {
    // Relu copies or zeroes values: exact.
    static constexpr double tolerance_vs_reference = 0;
    int size;

    std::string label() const { return "relu " + std::to_string(size); }
    template <typename T>
    Tensors<T> make_inputs(std::mt19937& rng) const {
        return {{"x", away_from_zero<T>(size, rng)}};
    }
    template <typename Ops, typename T = typename Ops::Scalar>
    std::vector<T> forward(Ops& ops, const Tensors<T>& in) const {
        return ops.relu_forward(in.at("x"));
    }
    template <typename Ops, typename T = typename Ops::Scalar>
    Tensors<T> backward(Ops& ops, const Tensors<T>& in, const std::vector<T>& dy) const {
        return {{"x", ops.relu_backward(forward(ops, in), dy)}};
    }
};

struct AvgPool2dOp {
    // Sums of kernel^2 values and one division or multiplication by the
    // reciprocal: a few ulps (oneDNN: <= 1e-8).
    static constexpr double tolerance_vs_reference = 1e-6;
    Pool2dShape shape;

    std::string label() const { return pool2d_label("avg_pool2d", shape); }
    template <typename T>
    Tensors<T> make_inputs(std::mt19937& rng) const {
        return {{"x", uniform<T>(ref::pool2d_input_size(shape), -1, 1, rng)}};
    }
    template <typename Ops, typename T = typename Ops::Scalar>
    std::vector<T> forward(Ops& ops, const Tensors<T>& in) const {
        return ops.avg_pool2d_forward(shape, in.at("x"));
    }
    template <typename Ops, typename T = typename Ops::Scalar>
    Tensors<T> backward(Ops& ops, const Tensors<T>&, const std::vector<T>& dy) const {
        return {{"x", ops.avg_pool2d_backward(shape, dy)}};
    }
};

struct MaxPool2dOp {
    // The forward copies an input; the backward sums the dy of the windows
    // an element wins, perhaps in another order: a rounding (oneDNN: <= 6e-8).
    static constexpr double tolerance_vs_reference = 1e-6;
    Pool2dShape shape;

    std::string label() const { return pool2d_label("max_pool2d", shape); }
    // Distinct inputs 0.05 apart, shuffled: more than two steps apart, so no
    // step changes the element that wins a window.
    template <typename T>
    Tensors<T> make_inputs(std::mt19937& rng) const {
        std::vector<T> x(ref::pool2d_input_size(shape));
        for (std::size_t i = 0; i < x.size(); ++i)
            x[i] = T(0.05) * (T(i) - T(x.size() / 2));
        std::shuffle(x.begin(), x.end(), rng);
        return {{"x", std::move(x)}};
    }
    template <typename Ops, typename T = typename Ops::Scalar>
    std::vector<T> forward(Ops& ops, const Tensors<T>& in) const {
        return ops.max_pool2d_forward(shape, in.at("x")).first;
    }
    template <typename Ops, typename T = typename Ops::Scalar>
    Tensors<T> backward(Ops& ops, const Tensors<T>& in, const std::vector<T>& dy) const {
        const auto forward_result = ops.max_pool2d_forward(shape, in.at("x"));
        return {{"x", ops.max_pool2d_backward(shape, dy, forward_result.second)}};
    }
};

struct GlobalAvgPool2dOp {
    // As avg_pool2d, over whole planes (oneDNN: <= 1e-8).
    static constexpr double tolerance_vs_reference = 1e-6;
    NchwShape shape;

    std::string label() const { return nchw_label("global_avg_pool2d", shape); }
    template <typename T>
    Tensors<T> make_inputs(std::mt19937& rng) const {
        return {{"x", uniform<T>(ref::nchw_size(shape), -1, 1, rng)}};
    }
    template <typename Ops, typename T = typename Ops::Scalar>
    std::vector<T> forward(Ops& ops, const Tensors<T>& in) const {
        return ops.global_avg_pool2d_forward(shape, in.at("x"));
    }
    template <typename Ops, typename T = typename Ops::Scalar>
    Tensors<T> backward(Ops& ops, const Tensors<T>&, const std::vector<T>& dy) const {
        return {{"x", ops.global_avg_pool2d_backward(shape, dy)}};
    }
};

// y = a + b, whose backward is dy for both: the check is of the forward.
struct AddOp {
    // One rounded addition per element: exact.
    static constexpr double tolerance_vs_reference = 0;
    int size;

    std::string label() const { return "add " + std::to_string(size); }
    template <typename T>
    Tensors<T> make_inputs(std::mt19937& rng) const {
        return {{"a", uniform<T>(size, -1, 1, rng)}, {"b", uniform<T>(size, -1, 1, rng)}};
    }
    template <typename Ops, typename T = typename Ops::Scalar>
    std::vector<T> forward(Ops& ops, const Tensors<T>& in) const {
        return ops.add(in.at("a"), in.at("b"));
    }
    template <typename Ops, typename T = typename Ops::Scalar>
    Tensors<T> backward(Ops&, const Tensors<T>&, const std::vector<T>& dy) const {
        return {{"a", dy}, {"b", dy}};
    }
};

// A residual block around relu, y = x + relu(x): x feeds two branches, and
// accumulate sums their gradients, dx = dy + relu_backward(dy).
struct ResidualReluOp {
    // Relu's copies plus one rounded addition: exact.
    static constexpr double tolerance_vs_reference = 0;
    int size;

    std::string label() const { return "residual relu (add, accumulate) " + std::to_string(size); }
    template <typename T>
    Tensors<T> make_inputs(std::mt19937& rng) const {
        return {{"x", away_from_zero<T>(size, rng)}};
    }
    template <typename Ops, typename T = typename Ops::Scalar>
    std::vector<T> forward(Ops& ops, const Tensors<T>& in) const {
        return ops.add(in.at("x"), ops.relu_forward(in.at("x")));
    }
    template <typename Ops, typename T = typename Ops::Scalar>
    Tensors<T> backward(Ops& ops, const Tensors<T>& in, const std::vector<T>& dy) const {
        const std::vector<T> relu_dx = ops.relu_backward(ops.relu_forward(in.at("x")), dy);
        return {{"x", ops.accumulate(relu_dx, dy)}};
    }
};

// Dropout or dropout2d with a fixed draw: y = x * mask, linear in x.
struct DropoutOp {
    // The same counter-based draws on every CPU backend, one multiplication: exact.
    static constexpr double tolerance_vs_reference = 0;
    NchwShape shape;
    float p;
    bool per_plane;  // dropout2d

    DropoutConfig config() const { return {.p = p, .seed = kSeed, .step = 7}; }
    std::string label() const {
        return nchw_label(per_plane ? "dropout2d" : "dropout", shape) + " p " + std::to_string(p);
    }
    template <typename T>
    Tensors<T> make_inputs(std::mt19937& rng) const {
        return {{"x", uniform<T>(ref::nchw_size(shape), -1, 1, rng)}};
    }
    // {y, mask}
    template <typename Ops, typename T = typename Ops::Scalar>
    std::pair<std::vector<T>, std::vector<T>> run(Ops& ops, const Tensors<T>& in) const {
        return per_plane ? ops.dropout2d_forward(shape, config(), in.at("x"))
                         : ops.dropout_forward(config(), in.at("x"));
    }
    template <typename Ops, typename T = typename Ops::Scalar>
    std::vector<T> forward(Ops& ops, const Tensors<T>& in) const {
        return run(ops, in).first;
    }
    template <typename Ops, typename T = typename Ops::Scalar>
    Tensors<T> backward(Ops& ops, const Tensors<T>& in, const std::vector<T>& dy) const {
        return {{"x", ops.dropout_backward(run(ops, in).second, dy)}};
    }
};

// Batch normalization in training mode: the statistics are the batch's, so
// every y depends on every x of its channel. The running statistics do not
// enter y; batch_norm2d_statistics_match_reference_backend compares them.
struct BatchNorm2dOp {
    // Per channel, sums over count = N*H*W elements (mean, variance, dgamma,
    // dbeta) in the library's order and precision, then elementwise
    // arithmetic on them (oneDNN: <= 6e-7).
    static constexpr double tolerance_vs_reference = 1e-5;
    BatchNorm2dShape shape;

    std::string label() const { return batch_norm2d_label("batch_norm2d training", shape); }
    // x with a random offset per channel, for the mean to remove.
    template <typename T>
    Tensors<T> make_inputs(std::mt19937& rng) const {
        std::vector<T> x = uniform<T>(ref::batch_norm2d_size(shape), -1, 1, rng);
        const std::vector<T> offsets = uniform<T>(shape.channels, -2, 2, rng);
        const std::size_t area = std::size_t(shape.h) * shape.w;
        for (std::size_t i = 0; i < x.size(); ++i) x[i] += offsets[i / area % shape.channels];
        return {{"x", std::move(x)},
                {"gamma", uniform<T>(shape.channels, T(0.5), T(1.5), rng)},
                {"beta", uniform<T>(shape.channels, -1, 1, rng)}};
    }
    template <typename Ops, typename T = typename Ops::Scalar>
    std::pair<std::vector<T>, BatchNormStats<std::vector<T>>> run(Ops& ops,
                                                                  const Tensors<T>& in) const {
        return ops.batch_norm2d_forward_training(shape, in.at("x"), in.at("gamma"), in.at("beta"),
                                                 std::vector<T>(shape.channels, T(0)),
                                                 std::vector<T>(shape.channels, T(1)));
    }
    template <typename Ops, typename T = typename Ops::Scalar>
    std::vector<T> forward(Ops& ops, const Tensors<T>& in) const {
        return run(ops, in).first;
    }
    template <typename Ops, typename T = typename Ops::Scalar>
    Tensors<T> backward(Ops& ops, const Tensors<T>& in, const std::vector<T>& dy) const {
        const auto stats = run(ops, in).second;
        auto g = ops.batch_norm2d_backward(shape, in.at("x"), dy, in.at("gamma"), stats.mean,
                                           stats.var);
        return {{"x", std::move(g.dx)}, {"gamma", std::move(g.dgamma)},
                {"beta", std::move(g.dbeta)}};
    }
};

// Batch normalization with given statistics (evaluation mode), and its
// backward from backward_reduce (dgamma, dbeta) and backward_elementwise
// with zero reductions (dx), as backend.h documents: the statistics are
// constants.
struct BatchNorm2dGivenStatsOp {
    // Elementwise arithmetic (forward, dx) or sums over count elements
    // (dgamma, dbeta); oneDNN folds gamma and inv_std into one scale (<= 2e-7).
    static constexpr double tolerance_vs_reference = 1e-5;
    BatchNorm2dShape shape;

    std::string label() const { return batch_norm2d_label("batch_norm2d given stats", shape); }
    template <typename T>
    Tensors<T> make_inputs(std::mt19937& rng) const {
        return {{"x", uniform<T>(ref::batch_norm2d_size(shape), -1, 1, rng)},
                {"gamma", uniform<T>(shape.channels, T(0.5), T(1.5), rng)},
                {"beta", uniform<T>(shape.channels, -1, 1, rng)},
                {"mean", uniform<T>(shape.channels, T(-0.5), T(0.5), rng)},
                {"var", uniform<T>(shape.channels, T(0.5), T(2), rng)}};
    }
    template <typename Ops, typename T = typename Ops::Scalar>
    std::vector<T> forward(Ops& ops, const Tensors<T>& in) const {
        return ops.batch_norm2d_forward_given_stats(shape, in.at("x"), in.at("gamma"),
                                                    in.at("beta"), in.at("mean"), in.at("var"));
    }
    template <typename Ops, typename T = typename Ops::Scalar>
    Tensors<T> backward(Ops& ops, const Tensors<T>& in, const std::vector<T>& dy) const {
        auto [dgamma, dbeta] =
            ops.batch_norm2d_backward_reduce(shape, in.at("x"), dy, in.at("mean"), in.at("var"));
        const std::vector<T> zeros(shape.channels, T(0));
        return {{"x", ops.batch_norm2d_backward_elementwise(
                          shape, ref::batch_norm2d_count(shape), in.at("x"), dy, in.at("gamma"),
                          in.at("mean"), in.at("var"), zeros, zeros)},
                {"gamma", std::move(dgamma)},
                {"beta", std::move(dbeta)}};
    }
};

// Synchronized batch normalization over `replicas` shards of `shape` each,
// run as backend.h lays out, the all-reduces summing on the host: the same
// function of the whole batch as BatchNorm2dOp (see
// synchronized_batch_norm2d_matches_whole_batch).
struct SyncBatchNorm2dOp {
    // As BatchNorm2dOp (oneDNN: <= 2e-7).
    static constexpr double tolerance_vs_reference = 1e-5;
    BatchNorm2dShape shape;  // of one replica's shard
    int replicas;

    std::size_t shard_size() const { return ref::batch_norm2d_size(shape); }
    std::int64_t count() const { return replicas * ref::batch_norm2d_count(shape); }
    BatchNorm2dShape whole_batch_shape() const {
        BatchNorm2dShape whole = shape;
        whole.batch *= replicas;
        return whole;
    }

    std::string label() const {
        return batch_norm2d_label("batch_norm2d synchronized", shape) + " on " +
               std::to_string(replicas) + " replicas";
    }
    // BatchNorm2dOp's inputs for the whole batch, and the shift of the sums.
    template <typename T>
    Tensors<T> make_inputs(std::mt19937& rng) const {
        Tensors<T> inputs = BatchNorm2dOp{whole_batch_shape()}.make_inputs<T>(rng);
        inputs["shift"] = uniform<T>(shape.channels, -2, 2, rng);
        return inputs;
    }
    // The global statistics, from running statistics 0 and 1.
    template <typename Ops, typename T = typename Ops::Scalar>
    BatchNormStats<std::vector<T>> statistics(Ops& ops, const Tensors<T>& in) const {
        std::vector<T> sum(shape.channels, T(0)), sum_sq(shape.channels, T(0));
        for (int r = 0; r < replicas; ++r) {
            const auto [shard_sum, shard_sum_sq] =
                ops.batch_norm2d_sums(shape, slice(in.at("x"), r, shard_size()), in.at("shift"));
            add_to(sum, shard_sum);
            add_to(sum_sq, shard_sum_sq);
        }
        return ops.batch_norm2d_stats_from_sums(shape, count(), sum, sum_sq, in.at("shift"),
                                                std::vector<T>(shape.channels, T(0)),
                                                std::vector<T>(shape.channels, T(1)));
    }
    template <typename Ops, typename T = typename Ops::Scalar>
    std::vector<T> forward(Ops& ops, const Tensors<T>& in) const {
        const auto stats = statistics(ops, in);
        std::vector<T> y;
        for (int r = 0; r < replicas; ++r)
            append(y, ops.batch_norm2d_forward_given_stats(
                          shape, slice(in.at("x"), r, shard_size()), in.at("gamma"),
                          in.at("beta"), stats.mean, stats.var));
        return y;
    }
    template <typename Ops, typename T = typename Ops::Scalar>
    Tensors<T> backward(Ops& ops, const Tensors<T>& in, const std::vector<T>& dy) const {
        const auto stats = statistics(ops, in);
        std::vector<T> dgamma(shape.channels, T(0)), dbeta(shape.channels, T(0));
        for (int r = 0; r < replicas; ++r) {
            const auto [shard_dgamma, shard_dbeta] = ops.batch_norm2d_backward_reduce(
                shape, slice(in.at("x"), r, shard_size()), slice(dy, r, shard_size()), stats.mean,
                stats.var);
            add_to(dgamma, shard_dgamma);
            add_to(dbeta, shard_dbeta);
        }
        std::vector<T> dx;
        for (int r = 0; r < replicas; ++r)
            append(dx, ops.batch_norm2d_backward_elementwise(
                           shape, count(), slice(in.at("x"), r, shard_size()),
                           slice(dy, r, shard_size()), in.at("gamma"), stats.mean, stats.var,
                           dgamma, dbeta));
        return {{"x", std::move(dx)}, {"gamma", std::move(dgamma)}, {"beta", std::move(dbeta)}};
    }
};

struct LogSoftmaxOp {
    // Per row a max, exponentials, their sum and a log: oneDNN's vectorised
    // exp and log are polynomial approximations, good to a few 1e-6 (<= 4e-6).
    static constexpr double tolerance_vs_reference = 5e-5;
    int batch;
    int classes;
    float range;  // x is uniform in [-range, range]

    std::string label() const {
        return "log_softmax " + dims({batch, classes}) + " within +-" + std::to_string(int(range));
    }
    template <typename T>
    Tensors<T> make_inputs(std::mt19937& rng) const {
        return {{"x", uniform<T>(std::size_t(batch) * classes, -range, range, rng)}};
    }
    template <typename Ops, typename T = typename Ops::Scalar>
    std::vector<T> forward(Ops& ops, const Tensors<T>& in) const {
        return ops.log_softmax_forward(batch, classes, in.at("x"));
    }
    template <typename Ops, typename T = typename Ops::Scalar>
    Tensors<T> backward(Ops& ops, const Tensors<T>& in, const std::vector<T>& dy) const {
        return {{"x", ops.log_softmax_backward(batch, classes, forward(ops, in), dy)}};
    }
};

struct LinearOp {
    // As conv2d: sums of in (forward), out (backward data) or batch
    // (backward weights) products in the library's own order (oneDNN: <= 3e-6).
    static constexpr double tolerance_vs_reference = 1e-4;
    LinearShape shape;

    std::string label() const {
        return "linear x " + dims({shape.batch, shape.in_features}) + " w " +
               dims({shape.out_features, shape.in_features});
    }
    template <typename T>
    Tensors<T> make_inputs(std::mt19937& rng) const {
        return {{"x", uniform<T>(ref::linear_input_size(shape), -1, 1, rng)},
                {"w", uniform<T>(ref::linear_weight_size(shape), -1, 1, rng)},
                {"b", uniform<T>(shape.out_features, -1, 1, rng)}};
    }
    template <typename Ops, typename T = typename Ops::Scalar>
    std::vector<T> forward(Ops& ops, const Tensors<T>& in) const {
        return ops.linear_forward(shape, in.at("x"), in.at("w"), in.at("b"));
    }
    template <typename Ops, typename T = typename Ops::Scalar>
    Tensors<T> backward(Ops& ops, const Tensors<T>& in, const std::vector<T>& dy) const {
        auto [dw, db] = ops.linear_backward_weights(shape, in.at("x"), dy);
        return {{"x", ops.linear_backward_data(shape, dy, in.at("w"))},
                {"w", std::move(dw)},
                {"b", std::move(db)}};
    }
};

// A loss of rows of class scores with labels: softmax cross-entropy of
// logits, or the negative log-likelihood of log-probabilities. The op's
// output y is the one-element loss sum, so dL/dy = r[0] is exactly the
// grad_scale the backward pass is run with. The correct count, piecewise
// constant in the inputs, has the hand-computed tests instead.
struct ClassificationLossOp {
    // Per row `classes` exponentials, their sum and a log (softmax), which a
    // fast backend may compute in another precision or with vectorised exp
    // and log: a few ulps of the loss (oneDNN, in double: <= 1e-7). The NLL
    // sums one input a row.
    static constexpr double tolerance_vs_reference = 1e-6;
    enum Loss { softmax_cross_entropy, nll } loss;
    int batch;
    int classes;
    float range;  // the scores are uniform in [-range, range]

    std::string label() const {
        return (loss == nll ? "nll_loss " : "softmax_cross_entropy ") + dims({batch, classes}) +
               (loss == nll ? " inputs" : " logits") + " within +-" +
               std::to_string(int(range));
    }
    template <typename T>
    Tensors<T> make_inputs(std::mt19937& rng) const {
        std::vector<T> scores = uniform<T>(std::size_t(batch) * classes, -range, range, rng);
        std::uniform_int_distribution<int> label(0, classes - 1);
        std::vector<T> labels(batch);
        for (T& value : labels) value = T(label(rng));
        return {{"scores", std::move(scores)}, {"labels", std::move(labels)}};
    }
    template <typename Ops, typename T = typename Ops::Scalar>
    Backend::LossResult run(Ops& ops, const Tensors<T>& in,
                            std::type_identity_t<std::vector<T>>* dscores,
                            std::type_identity_t<T> grad_scale) const {
        return loss == nll ? ops.nll_loss(batch, classes, in.at("scores"), in.at("labels"),
                                          dscores, grad_scale)
                           : ops.softmax_cross_entropy(batch, classes, in.at("scores"),
                                                       in.at("labels"), dscores, grad_scale);
    }
    template <typename Ops, typename T = typename Ops::Scalar>
    std::vector<T> forward(Ops& ops, const Tensors<T>& in) const {
        return {T(run(ops, in, nullptr, T(0)).loss_sum)};
    }
    template <typename Ops, typename T = typename Ops::Scalar>
    Tensors<T> backward(Ops& ops, const Tensors<T>& in, const std::vector<T>& dy) const {
        std::vector<T> dscores;
        run(ops, in, &dscores, dy.at(0));
        return {{"scores", std::move(dscores)}};
    }
};

using OpCase = std::variant<Conv2dOp, ReluOp, AvgPool2dOp, MaxPool2dOp, GlobalAvgPool2dOp, AddOp,
                            ResidualReluOp, DropoutOp, BatchNorm2dOp, BatchNorm2dGivenStatsOp,
                            SyncBatchNorm2dOp, LinearOp, LogSoftmaxOp, ClassificationLossOp>;

const std::vector<OpCase>& op_cases() {
    static const std::vector<OpCase> cases{
        Conv2dOp{{.batch = 2, .in_channels = 3, .in_h = 7, .in_w = 7, .out_channels = 4,
                  .kernel = 3}},
        // Stride 2 with padding 1, even input.
        Conv2dOp{{.batch = 2, .in_channels = 2, .in_h = 8, .in_w = 8, .out_channels = 3,
                  .kernel = 3, .stride = 2, .pad = 1}},
        // Odd, non-square input.
        Conv2dOp{{.batch = 1, .in_channels = 3, .in_h = 9, .in_w = 7, .out_channels = 2,
                  .kernel = 3, .stride = 2, .pad = 1}},
        // Stride 2 that leaves the last input row and column in no window.
        Conv2dOp{{.batch = 2, .in_channels = 2, .in_h = 6, .in_w = 6, .out_channels = 3,
                  .kernel = 3, .stride = 2}},
        // 1x1 kernels, with stride 1 and 2.
        Conv2dOp{{.batch = 3, .in_channels = 4, .in_h = 5, .in_w = 5, .out_channels = 6,
                  .kernel = 1}},
        Conv2dOp{{.batch = 2, .in_channels = 4, .in_h = 7, .in_w = 7, .out_channels = 3,
                  .kernel = 1, .stride = 2}},
        // LeNet-like 5x5 kernels: "same" padding on one channel, then 6 -> 16.
        Conv2dOp{{.batch = 2, .in_channels = 1, .in_h = 12, .in_w = 12, .out_channels = 6,
                  .kernel = 5, .pad = 2}},
        Conv2dOp{{.batch = 2, .in_channels = 6, .in_h = 12, .in_w = 12, .out_channels = 16,
                  .kernel = 5}},

        ReluOp{257},

        AvgPool2dOp{{.batch = 2, .channels = 3, .in_h = 8, .in_w = 8}},
        // Odd input: the last row and column are in no window.
        AvgPool2dOp{{.batch = 1, .channels = 2, .in_h = 7, .in_w = 7}},
        // Overlapping windows.
        AvgPool2dOp{{.batch = 2, .channels = 2, .in_h = 7, .in_w = 7, .kernel = 3, .stride = 2}},
        // Padding 1 counted in the average, on a non-square input.
        AvgPool2dOp{{.batch = 2, .channels = 2, .in_h = 6, .in_w = 5, .kernel = 3, .stride = 2,
                     .pad = 1}},

        MaxPool2dOp{{.batch = 2, .channels = 3, .in_h = 8, .in_w = 8}},
        // Overlapping windows: an element can win several.
        MaxPool2dOp{{.batch = 2, .channels = 2, .in_h = 7, .in_w = 7, .kernel = 3, .stride = 2}},
        // ResNet's stem: 3x3, stride 2, padding 1, on odd and non-square inputs.
        MaxPool2dOp{{.batch = 2, .channels = 2, .in_h = 9, .in_w = 8, .kernel = 3, .stride = 2,
                     .pad = 1}},
        MaxPool2dOp{{.batch = 1, .channels = 3, .in_h = 5, .in_w = 5, .kernel = 2, .stride = 1,
                     .pad = 1}},

        GlobalAvgPool2dOp{{.batch = 2, .channels = 3, .h = 4, .w = 4}},
        GlobalAvgPool2dOp{{.batch = 3, .channels = 5, .h = 7, .w = 3}},
        GlobalAvgPool2dOp{{.batch = 2, .channels = 4, .h = 1, .w = 1}},

        AddOp{257},
        ResidualReluOp{257},

        DropoutOp{{.batch = 2, .channels = 3, .h = 5, .w = 5}, 0.5f, false},
        DropoutOp{{.batch = 1, .channels = 1, .h = 1, .w = 300}, 0.1f, false},
        DropoutOp{{.batch = 4, .channels = 6, .h = 3, .w = 3}, 0.5f, true},
        DropoutOp{{.batch = 2, .channels = 8, .h = 2, .w = 5}, 0.25f, true},

        BatchNorm2dOp{{.batch = 4, .channels = 3, .h = 5, .w = 5}},
        // Batch norm after a linear layer: N x C x 1 x 1, statistics over the batch.
        BatchNorm2dOp{{.batch = 8, .channels = 5, .h = 1, .w = 1}},
        BatchNorm2dOp{{.batch = 2, .channels = 4, .h = 3, .w = 7, .eps = 1e-3f,
                       .momentum = 0.3f}},
        BatchNorm2dGivenStatsOp{{.batch = 2, .channels = 3, .h = 4, .w = 4}},
        BatchNorm2dGivenStatsOp{{.batch = 3, .channels = 2, .h = 2, .w = 5, .eps = 1e-3f}},
        SyncBatchNorm2dOp{{.batch = 2, .channels = 3, .h = 4, .w = 4}, 3},
        SyncBatchNorm2dOp{{.batch = 1, .channels = 2, .h = 3, .w = 3}, 2},
        SyncBatchNorm2dOp{{.batch = 4, .channels = 3, .h = 2, .w = 2}, 1},

        LinearOp{{.batch = 4, .in_features = 20, .out_features = 10}},
        LinearOp{{.batch = 3, .in_features = 7, .out_features = 5}},
        LinearOp{{.batch = 1, .in_features = 1, .out_features = 1}},
        LinearOp{{.batch = 2, .in_features = 256, .out_features = 120}},

        LogSoftmaxOp{8, 10, 3},
        LogSoftmaxOp{3, 2, 1},
        // Wide inputs: exp would overflow float without the log-sum-exp shift.
        LogSoftmaxOp{4, 7, 100},

        ClassificationLossOp{ClassificationLossOp::softmax_cross_entropy, 8, 10, 3},
        ClassificationLossOp{ClassificationLossOp::softmax_cross_entropy, 3, 2, 1},
        // Wide logits: exp would overflow float without the log-sum-exp shift.
        ClassificationLossOp{ClassificationLossOp::softmax_cross_entropy, 4, 7, 100},
        ClassificationLossOp{ClassificationLossOp::nll, 8, 10, 5},
        ClassificationLossOp{ClassificationLossOp::nll, 3, 2, 1},
    };
    return cases;
}

// The data-driven tests (a) to (c) have one row per op case.
void add_op_case_rows() {
    QTest::addColumn<int>("op_case");
    for (std::size_t i = 0; i < op_cases().size(); ++i) {
        const std::string label = std::visit([](const auto& op) { return op.label(); },
                                             op_cases()[i]);
        QTest::newRow(label.c_str()) << int(i);
    }
}

// Calls visitor(op) with the op case of the current row.
template <typename Visitor>
void visit_current_op_case(Visitor&& visitor) {
    QFETCH(int, op_case);
    std::visit(visitor, op_cases().at(op_case));
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

}  // namespace

class TestOps : public QObject {
    Q_OBJECT

private slots:
    void reference_ops_match_finite_differences_in_double_data() { add_op_case_rows(); }
    void reference_ops_match_finite_differences_in_double() {
        ReferenceOps<double> ops;
        visit_current_op_case([&](const auto& op) { verify_gradients(op, ops); });
    }

    void reference_backend_matches_finite_differences_data() { add_op_case_rows(); }
    void reference_backend_matches_finite_differences() {
        visit_current_op_case([&](const auto& op) { verify_gradients(op, reference_); });
    }

    void onednn_backend_matches_finite_differences_data() { add_op_case_rows(); }
    void onednn_backend_matches_finite_differences() {
        visit_current_op_case([&](const auto& op) { verify_gradients(op, onednn_); });
    }

    void onednn_backend_matches_reference_backend_data() { add_op_case_rows(); }
    void onednn_backend_matches_reference_backend() {
        visit_current_op_case(
            [&](const auto& op) { verify_matches_reference(op, onednn_, reference_); });
    }

    void reference_backend_is_named_reference() {
        QCOMPARE(QString::fromStdString(reference_backend_.name()), QStringLiteral("reference"));
    }

    // The hand-computed tests run on both backends.

    void conv2d_known_values() {
        Failures failures;
        for (BackendOps* ops : backends()) {
            const std::string on = ops->name() + ": ";
            const std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8, 9};  // 1x1x3x3

            // One 2x2 filter [1 2; 3 4] plus bias 1: each output is its
            // window dotted with the filter, plus 1.
            const Conv2dShape s{.batch = 1, .in_channels = 1, .in_h = 3, .in_w = 3,
                                .out_channels = 1, .kernel = 2};
            const std::vector<float> w{1, 2, 3, 4};
            check_values(failures, on + "2x2 filter y", ops->conv2d_forward(s, x, w, {1}),
                         {38, 48, 68, 78});
            // With dy = 1: dx[i] sums the filter taps that touch x[i], dw sums
            // the input windows, db counts the outputs.
            const std::vector<float> ones(4, 1);
            check_values(failures, on + "2x2 filter dx", ops->conv2d_backward_data(s, ones, w),
                         {1, 3, 2, 4, 10, 6, 3, 7, 4});
            const auto [dw, db] = ops->conv2d_backward_weights(s, x, ones);
            check_values(failures, on + "2x2 filter dw", dw, {12, 16, 24, 28});
            check_values(failures, on + "2x2 filter db", db, {4});

            // A 3x3 box filter with padding 1 sums each in-bounds neighbourhood.
            const Conv2dShape padded{.batch = 1, .in_channels = 1, .in_h = 3, .in_w = 3,
                                     .out_channels = 1, .kernel = 3, .pad = 1};
            check_values(failures, on + "3x3 box pad 1 y",
                         ops->conv2d_forward(padded, x, std::vector<float>(9, 1), {0}),
                         {12, 21, 16, 27, 45, 33, 24, 39, 28});

            // A 1x1 filter of 2 with stride 2 doubles the corners.
            const Conv2dShape strided{.batch = 1, .in_channels = 1, .in_h = 3, .in_w = 3,
                                      .out_channels = 1, .kernel = 1, .stride = 2};
            check_values(failures, on + "1x1 stride 2 y",
                         ops->conv2d_forward(strided, x, {2}, {0}), {2, 6, 14, 18});
        }
        QVERIFY2(failures.empty(), failures.text());
    }

    void relu_known_values() {
        Failures failures;
        for (BackendOps* ops : backends()) {
            const std::string on = ops->name() + ": ";
            const std::vector<float> y = ops->relu_forward({-1, 0, 2, -0.5f});
            check_values(failures, on + "y", y, {0, 0, 2, 0});
            // The gradient passes only where y > 0 (so not at 0).
            check_values(failures, on + "dx", ops->relu_backward(y, {5, 6, 7, 8}), {0, 0, 7, 0});
        }
        QVERIFY2(failures.empty(), failures.text());
    }

    void avg_pool2d_known_values() {
        Failures failures;
        for (BackendOps* ops : backends()) {
            const std::string on = ops->name() + ": ";
            const Pool2dShape s{.batch = 1, .channels = 1, .in_h = 4, .in_w = 4};
            std::vector<float> x(16);
            for (std::size_t i = 0; i < x.size(); ++i) x[i] = float(i + 1);
            check_values(failures, on + "y", ops->avg_pool2d_forward(s, x),
                         {3.5f, 5.5f, 11.5f, 13.5f});
            // Each window's dy is spread as dy / 4 over its 2x2 block.
            check_values(failures, on + "dx", ops->avg_pool2d_backward(s, {1, 2, 3, 4}),
                         {0.25f, 0.25f, 0.5f, 0.5f, 0.25f, 0.25f, 0.5f, 0.5f,  //
                          0.75f, 0.75f, 1, 1, 0.75f, 0.75f, 1, 1});

            // 3x3 windows with padding 1 over a 2x2 input: each window holds
            // all four values and five zeros of padding, and divides by 9.
            const Pool2dShape padded{.batch = 1, .channels = 1, .in_h = 2, .in_w = 2,
                                     .kernel = 3, .stride = 1, .pad = 1};
            check_values(failures, on + "padded y", ops->avg_pool2d_forward(padded, {1, 2, 3, 4}),
                         std::vector<float>(4, 10.0f / 9));
            check_values(failures, on + "padded dx",
                         ops->avg_pool2d_backward(padded, std::vector<float>(4, 1)),
                         std::vector<float>(4, 4.0f / 9));
        }
        QVERIFY2(failures.empty(), failures.text());
    }

    void max_pool2d_known_values() {
        Failures failures;
        for (BackendOps* ops : backends()) {
            const std::string on = ops->name() + ": ";
            const auto forward_backward = [&](const std::string& what, const Pool2dShape& s,
                                              const std::vector<float>& x,
                                              const std::vector<float>& dy,
                                              const std::vector<float>& expected_y,
                                              const std::vector<float>& expected_dx) {
                const auto [y, workspace] = ops->max_pool2d_forward(s, x);
                check_values(failures, on + what + " y", y, expected_y);
                check_values(failures, on + what + " dx",
                             ops->max_pool2d_backward(s, dy, workspace), expected_dx);
            };
            std::vector<float> x(16);  // 1..16, row-major 4x4
            for (std::size_t i = 0; i < x.size(); ++i) x[i] = float(i + 1);

            // 2x2 windows: the maximum is each block's bottom-right element,
            // and only it receives the block's dy.
            const Pool2dShape s{.batch = 1, .channels = 1, .in_h = 4, .in_w = 4};
            forward_backward("2x2", s, x, {1, 2, 3, 4}, {6, 8, 14, 16},
                             {0, 0, 0, 0, 0, 1, 0, 2, 0, 0, 0, 0, 0, 3, 0, 4});

            // Padding is never the maximum, even of negative values: 3x3
            // windows, stride 2, padding 1 over -1..-16 take each window's
            // top-left real element.
            std::vector<float> negative(16);
            for (std::size_t i = 0; i < x.size(); ++i) negative[i] = -x[i];
            const Pool2dShape padded{.batch = 1, .channels = 1, .in_h = 4, .in_w = 4,
                                     .kernel = 3, .stride = 2, .pad = 1};
            forward_backward("padded", padded, negative, {1, 2, 3, 4}, {-1, -2, -5, -6},
                             {1, 2, 0, 0, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});

            // Ties go to the first maximum in row-major order: with all
            // values equal, each 2x2 window (stride 1) of a 3x3 input picks
            // its top-left element.
            const Pool2dShape overlapping{.batch = 1, .channels = 1, .in_h = 3, .in_w = 3,
                                          .kernel = 2, .stride = 1};
            forward_backward("ties", overlapping, std::vector<float>(9, 7), {1, 2, 3, 4},
                             std::vector<float>(4, 7), {1, 2, 0, 3, 4, 0, 0, 0, 0});
            // An element that wins several windows receives the sum of their dy.
            forward_backward("shared maximum", overlapping, {0, 0, 0, 0, 9, 0, 0, 0, 0},
                             {1, 2, 3, 4}, std::vector<float>(4, 9), {0, 0, 0, 0, 10, 0, 0, 0, 0});

            // A workspace sized for a batch serves the smaller batches.
            Pool2dShape batch_of_2 = padded, batch_of_8 = padded;
            batch_of_2.batch = 2;
            batch_of_8.batch = 8;
            const std::size_t small = ops->max_pool2d_workspace_size(batch_of_2),
                              large = ops->max_pool2d_workspace_size(batch_of_8);
            failures.check(small <= large, on + "workspace of batch 2 " + std::to_string(small) +
                                               " bytes > of batch 8 " + std::to_string(large));
        }
        QVERIFY2(failures.empty(), failures.text());
    }

    void pool2d_rejects_padding_over_half_the_kernel() {
        const Pool2dShape s{.batch = 1, .channels = 1, .in_h = 4, .in_w = 4, .kernel = 2,
                            .stride = 2, .pad = 2};
        const std::vector<float> x(16, 1);
        for (BackendOps* ops : backends()) {
            QVERIFY_THROWS_EXCEPTION(dp::Error, ops->avg_pool2d_forward(s, x));
            QVERIFY_THROWS_EXCEPTION(dp::Error, ops->max_pool2d_forward(s, x));
        }
    }

    void global_avg_pool2d_known_values() {
        Failures failures;
        for (BackendOps* ops : backends()) {
            const std::string on = ops->name() + ": ";
            // Two 2x3 planes, 1..6 and 7..12.
            const NchwShape s{.batch = 1, .channels = 2, .h = 2, .w = 3};
            std::vector<float> x(12);
            for (std::size_t i = 0; i < x.size(); ++i) x[i] = float(i + 1);
            check_values(failures, on + "y", ops->global_avg_pool2d_forward(s, x), {3.5f, 9.5f});
            // Each plane's dy is spread as dy / 6.
            std::vector<float> expected_dx(12, 1);
            std::fill(expected_dx.begin() + 6, expected_dx.end(), 2.0f);
            check_values(failures, on + "dx", ops->global_avg_pool2d_backward(s, {6, 12}),
                         expected_dx);
        }
        QVERIFY2(failures.empty(), failures.text());
    }

    // Each sum is one float addition and each scaling one multiplication, so
    // the results are bit-exact; accumulate adds in place (add with y = a).
    void add_and_accumulate_are_exact() {
        std::mt19937 rng(kSeed);
        const std::vector<float> a = uniform<float>(1001, -1, 1, rng);
        const std::vector<float> b = uniform<float>(a.size(), -1, 1, rng);
        std::vector<float> expected(a.size());
        for (std::size_t i = 0; i < a.size(); ++i) expected[i] = a[i] + b[i];
        Failures failures;
        std::vector<float> scaled(a.size());
        for (std::size_t i = 0; i < a.size(); ++i) scaled[i] = a[i] * 0.25f;
        for (BackendOps* ops : backends()) {
            check_values(failures, ops->name() + ": scale", ops->scale(a, 0.25f), scaled, 0);
            check_values(failures, ops->name() + ": add", ops->add(a, b), expected, 0);
            check_values(failures, ops->name() + ": accumulate", ops->accumulate(a, b), expected,
                         0);
        }
        QVERIFY2(failures.empty(), failures.text());
    }

    // The masks hold 0 and exactly 1 / (1 - p), drop a fraction p of the
    // units (within 5 standard deviations), and y = x * mask exactly. p = 0
    // keeps everything, p = 1 drops everything.
    void dropout_masks_drop_fraction_p() {
        std::mt19937 rng(kSeed);
        const NchwShape s{.batch = 20, .channels = 100, .h = 5, .w = 10};  // 2000 planes
        const std::vector<float> x = uniform<float>(ref::nchw_size(s), -1, 1, rng);
        Failures failures;
        for (BackendOps* ops : backends())
            for (const bool per_plane : {false, true})
                for (const float p : {0.0f, 0.1f, 0.5f, 0.9f, 1.0f}) {
                    const std::string what = ops->name() + ": " +
                                             (per_plane ? "dropout2d" : "dropout") + " p " +
                                             std::to_string(p);
                    const DropoutConfig config{.p = p, .seed = 42, .step = 1};
                    const auto [y, mask] = per_plane ? ops->dropout2d_forward(s, config, x)
                                                     : ops->dropout_forward(config, x);
                    const float scale = 1.0f / (1.0f - p);
                    std::size_t dropped = 0;
                    bool values_ok = true;
                    for (std::size_t i = 0; i < x.size(); ++i) {
                        dropped += mask[i] == 0;
                        values_ok &= (mask[i] == 0 || mask[i] == scale) && y[i] == x[i] * mask[i];
                    }
                    failures.check(values_ok,
                                   what + ": mask not 0 or 1 / (1 - p), or y != x * mask");
                    if (per_plane) {
                        const std::size_t area = std::size_t(s.h) * s.w;
                        bool planes_ok = true;
                        for (std::size_t i = 0; i < x.size(); ++i)
                            planes_ok &= mask[i] == mask[i / area * area];
                        failures.check(planes_ok, what + ": a plane's mask is not uniform");
                    }
                    const double units = per_plane ? s.batch * s.channels : double(x.size());
                    const double fraction = double(dropped) / double(x.size());
                    const double allowed = 5 * std::sqrt(p * (1 - p) / units);
                    failures.check(std::abs(fraction - p) <= allowed,
                                   what + ": dropped " + std::to_string(fraction) + " of " +
                                       std::to_string(units) + " units, allowed +-" +
                                       std::to_string(allowed));
                }
        QVERIFY2(failures.empty(), failures.text());
    }

    // A mask depends only on (seed, step, offset + unit): the same call
    // gives the same mask; another step or seed another one; and the shards
    // of a batch, each passing its first unit as the offset, together get
    // the whole batch's mask. Both backends draw the same masks (checked by
    // onednn_backend_matches_reference_backend with tolerance 0).
    void dropout_is_counter_based() {
        std::mt19937 rng(kSeed);
        const NchwShape whole{.batch = 6, .channels = 4, .h = 3, .w = 3};
        const NchwShape shard{.batch = 2, .channels = 4, .h = 3, .w = 3};
        const std::size_t shard_size = ref::nchw_size(shard);
        const std::uint64_t shard_planes = shard.batch * shard.channels;
        const std::vector<float> x = uniform<float>(ref::nchw_size(whole), 1, 2, rng);
        const DropoutConfig config{.p = 0.5f, .seed = 1234, .step = 10};
        Failures failures;
        for (BackendOps* ops : backends())
            for (const bool per_plane : {false, true}) {
                const std::string on = ops->name() + ": " + (per_plane ? "dropout2d" : "dropout");
                const auto mask_of = [&](const NchwShape& s, const DropoutConfig& c,
                                         const std::vector<float>& input) {
                    return (per_plane ? ops->dropout2d_forward(s, c, input)
                                      : ops->dropout_forward(c, input))
                        .second;
                };
                const std::vector<float> mask = mask_of(whole, config, x);
                check_values(failures, on + " repeated", mask_of(whole, config, x), mask, 0);

                std::vector<float> sharded;
                for (std::uint64_t r = 0; r < 3; ++r) {
                    DropoutConfig shard_config = config;
                    shard_config.offset = r * (per_plane ? shard_planes : shard_size);
                    append(sharded, mask_of(shard, shard_config, slice(x, r, shard_size)));
                }
                check_values(failures, on + " sharded", sharded, mask, 0);

                DropoutConfig next_step = config, other_seed = config;
                ++next_step.step;
                ++other_seed.seed;
                for (const auto& [what, other] :
                     {std::pair{"next step", next_step}, std::pair{"other seed", other_seed}}) {
                    const std::vector<float> other_mask = mask_of(whole, other, x);
                    std::size_t differ = 0;
                    for (std::size_t i = 0; i < mask.size(); ++i)
                        differ += other_mask[i] != mask[i];
                    // Independent masks differ in half the elements.
                    failures.check(differ > mask.size() / 4,
                                   on + " " + what + ": only " + std::to_string(differ) + " of " +
                                       std::to_string(mask.size()) + " mask values differ");
                }
            }
        QVERIFY2(failures.empty(), failures.text());
    }

    void dropout_rejects_p_outside_0_to_1() {
        const std::vector<float> x(10, 1);
        for (BackendOps* ops : backends())
            for (const float p : {-0.1f, 1.5f, std::numeric_limits<float>::quiet_NaN()})
                QVERIFY_THROWS_EXCEPTION(dp::Error, ops->dropout_forward({.p = p}, x));
    }

    // Equal inputs give log softmax -log(classes); a dominant input, 0 and
    // the others their distance below it, even where exp overflows. oneDNN's
    // exp and log are approximations: LogSoftmaxOp's tolerance.
    void log_softmax_known_values() {
        constexpr double tolerance = LogSoftmaxOp::tolerance_vs_reference;
        Failures failures;
        for (BackendOps* ops : backends()) {
            const std::string on = ops->name() + ": ";
            const std::vector<float> y = ops->log_softmax_forward(2, 4, {0, 0, 0, 0, 5, 5, 5, 5});
            check_values(failures, on + "equal inputs y", y,
                         std::vector<float>(8, -std::log(4.0f)), tolerance);
            check_values(failures, on + "large inputs y",
                         ops->log_softmax_forward(2, 2, {1000, 0, -1000, 1000}),
                         {0, -1000, -2000, 0}, tolerance);
            // dy = -1 at one class (the NLL's gradient): dx = softmax - that
            // class's indicator, softmax 1/4.
            check_values(failures, on + "dx",
                         ops->log_softmax_backward(2, 4, y, {0, 0, -1, 0, -1, 0, 0, 0}),
                         {0.25f, 0.25f, -0.75f, 0.25f, -0.75f, 0.25f, 0.25f, 0.25f}, tolerance);
        }
        QVERIFY2(failures.empty(), failures.text());
    }

    // The NLL of log-probabilities is minus the label's value; after
    // log_softmax it is softmax cross-entropy: the same loss and, through
    // log_softmax_backward, the same gradient of the logits.
    void nll_loss_of_log_softmax_is_softmax_cross_entropy() {
        Failures failures;
        std::mt19937 rng(kSeed);
        const int batch = 6, classes = 5;
        const std::vector<float> logits = uniform<float>(batch * classes, -4, 4, rng);
        const std::vector<float> labels{0, 4, 2, 2, 1, 3};
        const float grad_scale = 0.25f;
        for (BackendOps* ops : backends()) {
            const std::string on = ops->name() + ": ";
            std::vector<float> dlog_probs;
            const auto known = ops->nll_loss(2, 3, {-1, -2, -3, -0.5f, -4, -6}, {2, 0},
                                             &dlog_probs, grad_scale);
            check_values(failures, on + "known loss sum", {float(known.loss_sum)}, {3.5f});
            failures.check(known.correct == 1, on + "known correct " +
                                                   std::to_string(known.correct) + ", expected 1");
            check_values(failures, on + "known dlog_probs", dlog_probs,
                         {0, 0, -grad_scale, -grad_scale, 0, 0});

            std::vector<float> expected_dlogits;
            const auto expected = ops->softmax_cross_entropy(batch, classes, logits, labels,
                                                             &expected_dlogits, grad_scale);
            const std::vector<float> log_probs = ops->log_softmax_forward(batch, classes, logits);
            const auto actual =
                ops->nll_loss(batch, classes, log_probs, labels, &dlog_probs, grad_scale);
            check_values(failures, on + "loss sum", {float(actual.loss_sum)},
                         {float(expected.loss_sum)}, 1e-5);
            failures.check(actual.correct == expected.correct,
                           on + "correct " + std::to_string(actual.correct) + ", expected " +
                               std::to_string(expected.correct));
            check_values(failures, on + "dlogits",
                         ops->log_softmax_backward(batch, classes, log_probs, dlog_probs),
                         expected_dlogits, 1e-5);
        }
        QVERIFY2(failures.empty(), failures.text());
    }

    // Two channels of four values, eps 0 so that the numbers are round:
    // channel 0 is {1, 3, 1, 3} (mean 2, variance 1), channel 1 {10, 10, 14,
    // 14} (mean 12, variance 4); both normalize to +-1.
    void batch_norm2d_known_values() {
        const BatchNorm2dShape s{.batch = 2, .channels = 2, .h = 1, .w = 2, .eps = 0};
        const std::vector<float> x{1, 3, 10, 10, 1, 3, 14, 14};  // [n][c][w]
        const std::vector<float> gamma{2, 0.5f}, beta{1, -1};
        Failures failures;
        for (BackendOps* ops : backends()) {
            const std::string on = ops->name() + ": ";
            const auto [y, stats] =
                ops->batch_norm2d_forward_training(s, x, gamma, beta, {0, 0}, {1, 1});
            // y = gamma * xhat + beta, xhat {-1, 1, -1, 1} and {-1, -1, 1, 1}.
            check_values(failures, on + "y", y, {-1, 3, -1.5f, -1.5f, -1, 3, -0.5f, -0.5f});
            check_values(failures, on + "mean", stats.mean, {2, 12});
            check_values(failures, on + "var", stats.var, {1, 4});
            // running = 0.9 running + 0.1 batch, the variance unbiased by 4 / 3.
            check_values(failures, on + "running_mean", stats.running_mean, {0.2f, 1.2f});
            check_values(failures, on + "running_var", stats.running_var,
                         {0.9f + 0.1f * 4 / 3, 0.9f + 0.1f * 16 / 3});

            // Channel 0, dy = {1, 0, 0, 0}: dbeta = 1, dgamma = xhat[0] = -1,
            // dx = gamma * (dy - 1/4 + xhat / 4) = {1, 0, -1, 0}. Channel 1,
            // dy = 1 everywhere, shifts y: dbeta = 4 but dgamma = 0, dx = 0.
            const std::vector<float> dy{1, 0, 1, 1, 0, 0, 1, 1};
            const auto g = ops->batch_norm2d_backward(s, x, dy, gamma, stats.mean, stats.var);
            check_values(failures, on + "dx", g.dx, {1, 0, 0, 0, -1, 0, 0, 0});
            check_values(failures, on + "dgamma", g.dgamma, {-1, 0});
            check_values(failures, on + "dbeta", g.dbeta, {1, 4});

            // Evaluation mode with mean 0 and variance 1: y = gamma * x + beta.
            check_values(failures, on + "given stats y",
                         ops->batch_norm2d_forward_given_stats(s, x, gamma, beta, {0, 0}, {1, 1}),
                         {3, 7, 4, 4, 3, 7, 6, 6});

            // Sums shifted by {2, 10}: deviations {-1, 1, -1, 1} and {0, 0, 4, 4}.
            const std::vector<float> shift{2, 10};
            const auto [sum, sum_sq] = ops->batch_norm2d_sums(s, x, shift);
            check_values(failures, on + "sum", sum, {0, 8});
            check_values(failures, on + "sum_sq", sum_sq, {4, 32});
            check_values(failures, on + "unshifted sum_sq", ops->batch_norm2d_sums(s, x, {}).second,
                         {20, 592});
            const auto from_sums =
                ops->batch_norm2d_stats_from_sums(s, 4, sum, sum_sq, shift, {0, 0}, {1, 1});
            check_values(failures, on + "mean from sums", from_sums.mean, stats.mean);
            check_values(failures, on + "var from sums", from_sums.var, stats.var);
            check_values(failures, on + "running_mean from sums", from_sums.running_mean,
                         stats.running_mean);
            check_values(failures, on + "running_var from sums", from_sums.running_var,
                         stats.running_var);
        }
        QVERIFY2(failures.empty(), failures.text());
    }

    // The shape's defaults are PyTorch's; the statistics a backend saves and
    // the running statistics it updates match ReferenceBackend's, step after
    // step; and one value per channel is refused, as by PyTorch.
    void batch_norm2d_statistics_match_reference_backend() {
        QCOMPARE(BatchNorm2dShape{}.eps, 1e-5f);
        QCOMPARE(BatchNorm2dShape{}.momentum, 0.1f);
        // Sums of count values in another order (oneDNN: <= 1e-7).
        constexpr double tolerance = 1e-6;
        const BatchNorm2dOp op{{.batch = 4, .channels = 3, .h = 5, .w = 5, .momentum = 0.2f}};
        std::mt19937 rng(kSeed);
        Failures failures;
        BatchNormStats<std::vector<float>> expected{{}, {}, {0, 0, 0}, {1, 1, 1}};
        auto actual = expected;
        for (int step = 0; step < 3; ++step) {
            const Tensors<float> in = op.make_inputs<float>(rng);
            const auto train = [&](BackendOps& ops, const BatchNormStats<std::vector<float>>& old) {
                return ops
                    .batch_norm2d_forward_training(op.shape, in.at("x"), in.at("gamma"),
                                                   in.at("beta"), old.running_mean,
                                                   old.running_var)
                    .second;
            };
            expected = train(reference_, expected);
            actual = train(onednn_, actual);
            const std::string at = "step " + std::to_string(step) + " ";
            for (const auto& [name, a, e] :
                 {std::tuple{"mean", &actual.mean, &expected.mean},
                  std::tuple{"var", &actual.var, &expected.var},
                  std::tuple{"running_mean", &actual.running_mean, &expected.running_mean},
                  std::tuple{"running_var", &actual.running_var, &expected.running_var}})
                failures.check(dp::test::compare_elementwise(*a, *e, 1.0), tolerance, at + name,
                               onednn_.name(), reference_.name());
        }
        const BatchNorm2dShape single{.batch = 1, .channels = 2, .h = 1, .w = 1};
        for (BackendOps* ops : backends())
            QVERIFY_THROWS_EXCEPTION(dp::Error, ops->batch_norm2d_forward_training(
                                                    single, {1, 2}, {1, 1}, {0, 0}, {0, 0},
                                                    {1, 1}));
        QVERIFY2(failures.empty(), failures.text());
    }

    // Synchronized batch normalization over shards is batch normalization
    // of the whole batch: the same y, dx, dgamma, dbeta and statistics.
    void synchronized_batch_norm2d_matches_whole_batch() {
        // Float sums of the shards' sums and products in another order.
        constexpr double tolerance = 1e-5;
        const SyncBatchNorm2dOp sync{{.batch = 2, .channels = 3, .h = 4, .w = 4}, 3};
        const BatchNorm2dOp whole{sync.whole_batch_shape()};
        std::mt19937 rng(kSeed);
        const Tensors<float> in = sync.make_inputs<float>(rng);
        const std::vector<float> dy =
            uniform<float>(ref::batch_norm2d_size(whole.shape), -1, 1, rng);
        Failures failures;
        for (BackendOps* ops : backends()) {
            const std::string on = ops->name() + ": ";
            const Tensors<float> expected = forward_and_backward(whole, *ops, in, dy);
            const Tensors<float> actual = forward_and_backward(sync, *ops, in, dy);
            for (const auto& [name, expected_values] : expected)
                failures.check(dp::test::compare_elementwise(actual.at(name), expected_values, 1.0),
                               tolerance, on + name, "synchronized", "whole batch");
            const auto expected_stats = whole.run(*ops, in).second;
            const auto actual_stats = sync.statistics(*ops, in);
            for (const auto& [name, a, e] :
                 {std::tuple{"mean", &actual_stats.mean, &expected_stats.mean},
                  std::tuple{"var", &actual_stats.var, &expected_stats.var},
                  std::tuple{"running_mean", &actual_stats.running_mean,
                             &expected_stats.running_mean},
                  std::tuple{"running_var", &actual_stats.running_var,
                             &expected_stats.running_var}})
                failures.check(dp::test::compare_elementwise(*a, *e, 1.0), tolerance, on + name,
                               "synchronized", "whole batch");
        }
        QVERIFY2(failures.empty(), failures.text());
    }

    void linear_known_values() {
        Failures failures;
        for (BackendOps* ops : backends()) {
            const std::string on = ops->name() + ": ";
            // w = [1 0; 0 1; 1 1] maps [1 2] to [1 2 3]; b = [0 1 -1].
            const LinearShape s{.batch = 1, .in_features = 2, .out_features = 3};
            const std::vector<float> x{1, 2}, w{1, 0, 0, 1, 1, 1};
            check_values(failures, on + "y", ops->linear_forward(s, x, w, {0, 1, -1}), {1, 3, 2});
            const std::vector<float> ones(3, 1);
            check_values(failures, on + "dx", ops->linear_backward_data(s, ones, w), {2, 2});
            const auto [dw, db] = ops->linear_backward_weights(s, x, ones);
            check_values(failures, on + "dw", dw, {1, 2, 1, 2, 1, 2});
            check_values(failures, on + "db", db, {1, 1, 1});
        }
        QVERIFY2(failures.empty(), failures.text());
    }

    // Equal logits give softmax 1/classes: the loss of each row is
    // log(classes) and its gradient grad_scale * (1/classes - [c == label]).
    void softmax_cross_entropy_of_equal_logits_is_log_classes() {
        Failures failures;
        for (BackendOps* ops : backends()) {
            const std::string on = ops->name() + ": ";
            const int batch = 2, classes = 10;
            const float grad_scale = 0.5f;
            std::vector<float> dlogits;
            const auto result = ops->softmax_cross_entropy(
                batch, classes, std::vector<float>(batch * classes, 0), {3, 7}, &dlogits,
                grad_scale);
            check_values(failures, on + "loss sum", {float(result.loss_sum)},
                         {float(batch * std::log(classes))});
            std::vector<float> expected(batch * classes, grad_scale / classes);
            expected[3] -= grad_scale;
            expected[classes + 7] -= grad_scale;
            check_values(failures, on + "dlogits", dlogits, expected);
        }
        QVERIFY2(failures.empty(), failures.text());
    }

    // Logits of 1000 overflow exp in float unless shifted by the maximum.
    void softmax_cross_entropy_is_stable_for_large_logits() {
        Failures failures;
        for (BackendOps* ops : backends()) {
            const std::string on = ops->name() + ": ";
            std::vector<float> dlogits;
            const auto result =
                ops->softmax_cross_entropy(2, 2, {1000, 0, 0, 1000}, {1, 1}, &dlogits, 1);
            // Row 0 puts all mass on the wrong class: loss 1000; row 1 is right: loss 0.
            check_values(failures, on + "loss sum", {float(result.loss_sum)}, {1000});
            failures.check(result.correct == 1,
                           on + "correct " + std::to_string(result.correct) + ", expected 1");
            check_values(failures, on + "dlogits", dlogits, {1, -1, 0, 0});
        }
        QVERIFY2(failures.empty(), failures.text());
    }

    // A row is correct when its arg-max, the first index among equal
    // maxima, is its label. Each row alone, then all rows in one batch.
    void losses_count_first_index_arg_max() {
        struct Row {
            std::vector<float> logits;
            float label;
            bool correct;
        };
        const std::vector<Row> rows{{{1, 3, 3}, 1, true},   // first of a tie
                                    {{5, 5, 5}, 0, true},   // first of three
                                    {{2, 2, 1}, 1, false},  // second of a tie
                                    {{0, 1, 0}, 1, true}};  // unique maximum
        std::vector<float> batch_logits, batch_labels;
        std::int64_t batch_correct = 0;
        for (const Row& row : rows) {
            batch_logits.insert(batch_logits.end(), row.logits.begin(), row.logits.end());
            batch_labels.push_back(row.label);
            batch_correct += row.correct;
        }
        Failures failures;
        for (BackendOps* ops : backends()) {
            const auto check_correct = [&](const std::string& what,
                                           const std::vector<float>& logits,
                                           const std::vector<float>& labels,
                                           std::int64_t expected) {
                // The NLL's rows are log-probabilities, with the same arg-max rule.
                const int batch = int(labels.size());
                for (const auto& [loss, result] :
                     {std::pair{"softmax_cross_entropy",
                                ops->softmax_cross_entropy(batch, 3, logits, labels, nullptr, 1)},
                      std::pair{"nll_loss", ops->nll_loss(batch, 3, logits, labels, nullptr, 1)}})
                    failures.check(result.correct == expected,
                                   ops->name() + ": " + loss + ": " + what + ": correct " +
                                       std::to_string(result.correct) + ", expected " +
                                       std::to_string(expected));
            };
            for (std::size_t i = 0; i < rows.size(); ++i)
                check_correct("row " + std::to_string(i), rows[i].logits, {rows[i].label},
                              rows[i].correct);
            check_correct("all rows", batch_logits, batch_labels, batch_correct);
        }
        QVERIFY2(failures.empty(), failures.text());
    }

    // param - lr * grad, rounded once per operation like the float
    // expression, so the result must be bit-exact.
    void sgd_update_is_exact() {
        std::mt19937 rng(kSeed);
        const std::vector<float> param = uniform<float>(1001, -1, 1, rng);
        const std::vector<float> grad = uniform<float>(param.size(), -1, 1, rng);
        const float lr = 0.1f;
        std::vector<float> expected(param.size());
        for (std::size_t i = 0; i < param.size(); ++i) expected[i] = param[i] - lr * grad[i];
        Failures failures;
        for (BackendOps* ops : backends())
            check_values(failures, ops->name() + ": param", ops->sgd_update(lr, param, grad),
                         expected, 0);
        QVERIFY2(failures.empty(), failures.text());
    }

    void memory_ops_are_exact() {
        std::mt19937 rng(kSeed);
        const std::vector<float> values = uniform<float>(1000, -1e6f, 1e6f, rng);
        // Labels are float class indices, exact below 2^24.
        const std::vector<std::int32_t> labels{0, 9, 123, (1 << 24) - 1};
        Failures failures;
        for (BackendOps* ops : backends()) {
            const std::string on = ops->name() + ": ";
            check_values(failures, on + "upload then download", ops->round_trip(values), values,
                         0);
            check_values(failures, on + "fill", ops->filled(333, 3.25f),
                         std::vector<float>(333, 3.25f), 0);
            check_values(failures, on + "upload_labels", ops->uploaded_labels(labels),
                         {0, 9, 123, float((1 << 24) - 1)}, 0);
        }
        QVERIFY2(failures.empty(), failures.text());
    }

private:
    std::vector<BackendOps*> backends() { return {&reference_, &onednn_}; }

    dp::ReferenceBackend reference_backend_;
    dp::OneDnnBackend onednn_backend_;
    BackendOps reference_{reference_backend_};
    BackendOps onednn_{onednn_backend_};
};

QTEST_APPLESS_MAIN(TestOps)
#include "test_ops.moc"
