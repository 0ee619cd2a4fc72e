// Elementwise ops: relu, add and accumulate (a residual connection), scale,
// dropout's counter-based draws, exact SGD, and the memory ops.
// Data-driven checks (a) to (c) of op_test_support.h on every op case below,
// then hand-computed values, which run on both backends.

#include "op_family_test.h"

namespace {

using namespace dp::op_test;

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
    // The masks DropoutConfig defines, drawn by each CPU backend's own code
    // (counter by counter, or walking the stream), one multiplication: exact.
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
        return {{"x", uniform<T>(shape.size(), -1, 1, rng)}};
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

using OpCase = std::variant<ReluOp, AddOp, ResidualReluOp, DropoutOp>;

const std::vector<OpCase>& op_cases() {
    static const std::vector<OpCase> cases{
        ReluOp{257},

        AddOp{257},
        ResidualReluOp{257},

        DropoutOp{{.batch = 2, .channels = 3, .h = 5, .w = 5}, 0.5f, false},
        DropoutOp{{.batch = 1, .channels = 1, .h = 1, .w = 300}, 0.1f, false},
        DropoutOp{{.batch = 4, .channels = 6, .h = 3, .w = 3}, 0.5f, true},
        DropoutOp{{.batch = 2, .channels = 8, .h = 2, .w = 5}, 0.25f, true},
    };
    return cases;
}

}  // namespace

class TestElementwiseOps : public OpFamilyTest {
    Q_OBJECT

    void add_rows() override { add_op_case_rows(op_cases()); }
    void run(OpCheck check) override { run_op_check(op_cases(), check, reference_, onednn_); }

private slots:
    void reference_backend_is_named_reference() {
        QCOMPARE(QString::fromStdString(reference_backend_.name()), QStringLiteral("reference"));
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
        const std::vector<float> x = uniform<float>(s.size(), -1, 1, rng);
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
        const std::size_t shard_size = shard.size();
        const std::uint64_t shard_planes = shard.batch * shard.channels;
        const std::vector<float> x = uniform<float>(whole.size(), 1, 2, rng);
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
};

QTEST_APPLESS_MAIN(TestElementwiseOps)
#include "test_ops_elementwise.moc"
