// The linear layer.
// Data-driven checks (a) to (c) of op_test_support.h on every op case below,
// then hand-computed values, which run on both backends.

#include "op_family_test.h"

namespace {

using namespace dp::op_test;

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
        return {{"x", uniform<T>(shape.input_size(), -1, 1, rng)},
                {"w", uniform<T>(shape.weight_size(), -1, 1, rng)},
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

using OpCase = std::variant<LinearOp>;

const std::vector<OpCase>& op_cases() {
    static const std::vector<OpCase> cases{
        LinearOp{{.batch = 4, .in_features = 20, .out_features = 10}},
        LinearOp{{.batch = 3, .in_features = 7, .out_features = 5}},
        LinearOp{{.batch = 1, .in_features = 1, .out_features = 1}},
        LinearOp{{.batch = 2, .in_features = 256, .out_features = 120}},
    };
    return cases;
}

}  // namespace

class TestLinearOps : public OpFamilyTest {
    Q_OBJECT

    void add_rows() override { add_op_case_rows(op_cases()); }
    void run(OpCheck check) override { run_op_check(op_cases(), check, reference_, onednn_); }

private slots:
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
};

QTEST_APPLESS_MAIN(TestLinearOps)
#include "test_ops_linear.moc"
