// Pooling: average, max and global average pooling.
// Data-driven checks (a) to (c) of op_test_support.h on every op case below,
// then hand-computed values, which run on both backends.

#include "op_family_test.h"

namespace {

using namespace dp::op_test;

struct AvgPool2dOp {
    // Sums of kernel^2 values and one division or multiplication by the
    // reciprocal: a few ulps (oneDNN: <= 1e-8).
    static constexpr double tolerance_vs_reference = 1e-6;
    Pool2dShape shape;

    std::string label() const { return pool2d_label("avg_pool2d", shape); }
    template <typename T>
    Tensors<T> make_inputs(std::mt19937& rng) const {
        return {{"x", uniform<T>(shape.input_size(), -1, 1, rng)}};
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

// nn.ReLU then nn.AvgPool2d in one op. Inputs at least 0.1 from zero: a
// finite-difference step never moves one across the ReLU's kink.
struct ReluAvgPool2dOp {
    // The reference's own sums, in its order: exact (the host loops sum the
    // same taps in the same order).
    static constexpr double tolerance_vs_reference = 0;
    Pool2dShape shape;

    std::string label() const { return pool2d_label("relu_avg_pool2d", shape); }
    template <typename T>
    Tensors<T> make_inputs(std::mt19937& rng) const {
        return {{"x", away_from_zero<T>(shape.input_size(), rng)}};
    }
    template <typename Ops, typename T = typename Ops::Scalar>
    std::vector<T> forward(Ops& ops, const Tensors<T>& in) const {
        return ops.relu_avg_pool2d_forward(shape, in.at("x"));
    }
    template <typename Ops, typename T = typename Ops::Scalar>
    Tensors<T> backward(Ops& ops, const Tensors<T>& in, const std::vector<T>& dy) const {
        return {{"x", ops.relu_avg_pool2d_backward(shape, in.at("x"), dy)}};
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
        std::vector<T> x(shape.input_size());
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
        return {{"x", uniform<T>(shape.size(), -1, 1, rng)}};
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

using OpCase = std::variant<AvgPool2dOp, ReluAvgPool2dOp, MaxPool2dOp, GlobalAvgPool2dOp>;

const std::vector<OpCase>& op_cases() {
    static const std::vector<OpCase> cases{
        AvgPool2dOp{{.batch = 2, .channels = 3, .in_h = 8, .in_w = 8}},
        // Odd input: the last row and column are in no window.
        AvgPool2dOp{{.batch = 1, .channels = 2, .in_h = 7, .in_w = 7}},
        // Overlapping windows.
        AvgPool2dOp{{.batch = 2, .channels = 2, .in_h = 7, .in_w = 7, .kernel = 3, .stride = 2}},
        // Padding 1 counted in the average, on a non-square input.
        AvgPool2dOp{{.batch = 2, .channels = 2, .in_h = 6, .in_w = 5, .kernel = 3, .stride = 2,
                     .pad = 1}},

        // LeNet's 2x2 blocks run vectorized, 4 outputs at a time, and the
        // rest of a row one by one: rows of 13 outputs from 26 and 27
        // inputs (the last column in no window), 4 from 9, 1 from 3.
        ReluAvgPool2dOp{{.batch = 2, .channels = 3, .in_h = 26, .in_w = 26}},
        ReluAvgPool2dOp{{.batch = 1, .channels = 2, .in_h = 27, .in_w = 27}},
        ReluAvgPool2dOp{{.batch = 3, .channels = 2, .in_h = 9, .in_w = 9}},
        ReluAvgPool2dOp{{.batch = 1, .channels = 2, .in_h = 3, .in_w = 4}},
        // Any other window runs the plain loops: overlapping, padded.
        ReluAvgPool2dOp{{.batch = 2, .channels = 2, .in_h = 7, .in_w = 7, .kernel = 3, .stride = 2}},
        ReluAvgPool2dOp{{.batch = 2, .channels = 2, .in_h = 6, .in_w = 5, .kernel = 3, .stride = 2,
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
    };
    return cases;
}

}  // namespace

class TestPoolingOps : public OpFamilyTest {
    Q_OBJECT

    void add_rows() override { add_op_case_rows(op_cases()); }
    void run(OpCheck check) override { run_op_check(op_cases(), check, reference_, onednn_); }

private slots:
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

    // The fused op gives the numbers of the two ops it replaces, on each
    // backend, zeros and negative zeros included (relu(-0) is 0 for both):
    // the same bits on 2x2 blocks; overlapping windows within a rounding
    // (oneDNN's own pooling adds their shares in another order).
    void relu_avg_pool2d_is_relu_then_avg_pool2d() {
        Failures failures;
        std::mt19937 rng(kSeed);
        const std::vector<std::pair<Pool2dShape, double>> cases{
            {{.batch = 2, .channels = 3, .in_h = 26, .in_w = 27}, 0},
            {{.batch = 1, .channels = 2, .in_h = 7, .in_w = 7, .kernel = 3, .stride = 2, .pad = 1},
             1e-6}};
        for (BackendOps* ops : backends()) {
            for (const auto& [s, tolerance] : cases) {
                std::vector<float> x = uniform<float>(s.input_size(), -1, 1, rng);
                for (std::size_t i = 0; i < x.size(); i += 5) x[i] = i % 2 ? 0.0f : -0.0f;
                const std::vector<float> dy = uniform<float>(s.output_size(), -1, 1, rng);
                const std::vector<float> relu_x = ops->relu_forward(x);
                const std::string what = ops->name() + ": " + pool2d_label("relu_avg_pool2d", s);
                check_values(failures, what + " y", ops->relu_avg_pool2d_forward(s, x),
                             ops->avg_pool2d_forward(s, relu_x), tolerance);
                check_values(failures, what + " dx", ops->relu_avg_pool2d_backward(s, x, dy),
                             ops->relu_backward(relu_x, ops->avg_pool2d_backward(s, dy)),
                             tolerance);
            }
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
            QVERIFY_THROWS_EXCEPTION(dp::Error, ops->relu_avg_pool2d_forward(s, x));
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
};

QTEST_APPLESS_MAIN(TestPoolingOps)
#include "test_ops_pooling.moc"
