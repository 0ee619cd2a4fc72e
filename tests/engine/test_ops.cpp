// Tests of the ops of the backends against the naive loops of
// engine/backend/reference/reference_ops.h:
//  (a) the reference ops' gradients match central finite differences in double;
//  (b) OneDnnBackend's forward and backward outputs match ReferenceBackend's;
//  (c) each backend's gradients match finite differences in float;
// plus hand-computed values, arg-max ties, exact SGD and the memory ops.
// (a) to (c) run every op on several shapes; each (check, op shape) pair is
// one row of a data-driven test, so a failure names both.

#include "gradient_check.h"

#include "backend/onednn/onednn_backend.h"
#include "backend/reference/reference_backend.h"
#include "backend/reference/reference_ops.h"

#include <QTest>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace {

using dp::Backend;
using dp::Conv2dShape;
using dp::LinearShape;
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

    DeviceVector upload(const Vector& host) {
        DeviceVector device{backend_.allocate(host.size()), host.size()};
        backend_.upload(host.data(), device.data(), host.size());
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

// -------------------------------------------------------------------- op cases
// Each op case holds a shape and says, once for every runner: how to make
// random inputs, the forward output y, and the backward pass given dy as the
// gradients of the differentiable inputs, keyed by the input's name. It also
// states the tolerance of (b), the largest relative error (see
// dp::test::relative_error; errors of values below magnitude 1 are absolute)
// between a fast backend and ReferenceBackend, and why it is that.

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
    // Inputs at least 0.1 away from the kink at 0, farther than any step.
    template <typename T>
    Tensors<T> make_inputs(std::mt19937& rng) const {
        std::vector<T> x = uniform<T>(size, T(0.1), T(1), rng);
        std::bernoulli_distribution negative(0.5);
        for (T& value : x)
            if (negative(rng)) value = -value;
        return {{"x", std::move(x)}};
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

    std::string label() const {
        return "avg_pool2d x " + dims({shape.batch, shape.channels, shape.in_h, shape.in_w}) +
               " kernel " + std::to_string(shape.kernel) + " stride " +
               std::to_string(shape.stride);
    }
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

// The op's output y is the one-element loss sum, so dL/dy = r[0] is exactly
// the grad_scale the backward pass is run with. The correct count, piecewise
// constant in the logits, has the hand-computed test instead.
struct SoftmaxCrossEntropyOp {
    // Per row `classes` exponentials, their sum and a log, which a fast
    // backend may compute in another precision or with vectorised exp and
    // log: a few ulps of the loss (oneDNN, in double: <= 1e-7).
    static constexpr double tolerance_vs_reference = 1e-6;
    int batch;
    int classes;
    float logit_range;  // logits are uniform in [-logit_range, logit_range]

    std::string label() const {
        return "softmax_cross_entropy " + dims({batch, classes}) + " logits within +-" +
               std::to_string(int(logit_range));
    }
    template <typename T>
    Tensors<T> make_inputs(std::mt19937& rng) const {
        std::vector<T> logits = uniform<T>(std::size_t(batch) * classes, -logit_range,
                                           logit_range, rng);
        std::uniform_int_distribution<int> label(0, classes - 1);
        std::vector<T> labels(batch);
        for (T& value : labels) value = T(label(rng));
        return {{"logits", std::move(logits)}, {"labels", std::move(labels)}};
    }
    template <typename Ops, typename T = typename Ops::Scalar>
    std::vector<T> forward(Ops& ops, const Tensors<T>& in) const {
        const auto result = ops.softmax_cross_entropy(batch, classes, in.at("logits"),
                                                      in.at("labels"), nullptr, T(0));
        return {T(result.loss_sum)};
    }
    template <typename Ops, typename T = typename Ops::Scalar>
    Tensors<T> backward(Ops& ops, const Tensors<T>& in, const std::vector<T>& dy) const {
        std::vector<T> dlogits;
        ops.softmax_cross_entropy(batch, classes, in.at("logits"), in.at("labels"), &dlogits,
                                  dy.at(0));
        return {{"logits", std::move(dlogits)}};
    }
};

using OpCase = std::variant<Conv2dOp, ReluOp, AvgPool2dOp, LinearOp, SoftmaxCrossEntropyOp>;

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

        LinearOp{{.batch = 4, .in_features = 20, .out_features = 10}},
        LinearOp{{.batch = 3, .in_features = 7, .out_features = 5}},
        LinearOp{{.batch = 1, .in_features = 1, .out_features = 1}},
        LinearOp{{.batch = 2, .in_features = 256, .out_features = 120}},

        SoftmaxCrossEntropyOp{8, 10, 3},
        SoftmaxCrossEntropyOp{3, 2, 1},
        // Wide logits: exp would overflow float without the log-sum-exp shift.
        SoftmaxCrossEntropyOp{4, 7, 100},
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
// relative, below magnitude 1 absolute. Only the softmax is not linear in its
// inputs, so only it has truncation error, ~step^2 / 6. The rounding error of
// L, ~(unit roundoff) x (magnitude of the outputs a step changes), is divided
// by 2 step.
// Double: step 1e-5 puts both near 1e-10; the worst error seen is 7e-9.
// Float: a large step, 1e-2, keeps the rounding error of the loss below 1e-3
// of the gradient; the worst error seen is 4e-4 (softmax, logits +-100).
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
    void softmax_cross_entropy_counts_first_index_arg_max() {
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
                const auto result = ops->softmax_cross_entropy(int(labels.size()), 3, logits,
                                                               labels, nullptr, 1);
                failures.check(result.correct == expected,
                               ops->name() + ": " + what + ": correct " +
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
