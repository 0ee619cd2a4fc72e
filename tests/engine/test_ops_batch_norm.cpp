// Batch normalization: training, given statistics, and synchronized over
// replicas, against batch normalization of the whole batch.
// Data-driven checks (a) to (c) of op_test_support.h on every op case below,
// then hand-computed values, which run on both backends.

#include <algorithm>

#include "op_family_test.h"

#include "backend/reference/nhwc.h"

namespace {

using namespace dp::op_test;

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
        std::vector<T> x = uniform<T>(shape.size(), -1, 1, rng);
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
        return {{"x", uniform<T>(shape.size(), -1, 1, rng)},
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
                          shape, shape.count_per_channel(), in.at("x"), dy, in.at("gamma"),
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

    std::size_t shard_size() const { return shape.size(); }
    std::int64_t count() const { return replicas * shape.count_per_channel(); }
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

using OpCase = std::variant<BatchNorm2dOp, BatchNorm2dGivenStatsOp, SyncBatchNorm2dOp>;

const std::vector<OpCase>& op_cases() {
    static const std::vector<OpCase> cases{
        BatchNorm2dOp{{.batch = 4, .channels = 3, .h = 5, .w = 5}},
        // Batch norm after a linear layer: N x C x 1 x 1, statistics over the batch.
        BatchNorm2dOp{{.batch = 8, .channels = 5, .h = 1, .w = 1}},
        BatchNorm2dOp{{.batch = 2, .channels = 4, .h = 3, .w = 7, .eps = 1e-3f,
                       .momentum = 0.3f}},
        // Planes longer than one run of the host loops' vector lanes (16 x 64
        // floats), not a multiple of 16: every path of their sums.
        BatchNorm2dOp{{.batch = 2, .channels = 3, .h = 37, .w = 37}},

        BatchNorm2dGivenStatsOp{{.batch = 2, .channels = 3, .h = 4, .w = 4}},
        BatchNorm2dGivenStatsOp{{.batch = 3, .channels = 2, .h = 2, .w = 5, .eps = 1e-3f}},

        SyncBatchNorm2dOp{{.batch = 2, .channels = 3, .h = 4, .w = 4}, 3},
        SyncBatchNorm2dOp{{.batch = 1, .channels = 2, .h = 3, .w = 3}, 2},
        SyncBatchNorm2dOp{{.batch = 4, .channels = 3, .h = 2, .w = 2}, 1},
        SyncBatchNorm2dOp{{.batch = 2, .channels = 2, .h = 33, .w = 33}, 2},
    };
    return cases;
}

}  // namespace

class TestBatchNormOps : public OpFamilyTest {
    Q_OBJECT

    void add_rows() override { add_op_case_rows(op_cases()); }
    void run(OpCheck check) override { run_op_check(op_cases(), check, reference_, onednn_); }

private slots:
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

    // The BatchNorm + ReLU pair as one op (what CUDA fuses into one kernel
    // each way) gives the bits of the two ops on every backend: by default
    // its backward runs the BatchNorm backward in place on the masked
    // gradient, which every backend must allow.
    void batch_norm2d_relu_fused_ops_match_the_pair() {
        const BatchNorm2dOp op{{.batch = 3, .channels = 4, .h = 5, .w = 3}};
        std::mt19937 rng(kSeed);
        const Tensors<float> in = op.make_inputs<float>(rng);
        const std::vector<float> dy = uniform<float>(op.shape.size(), -1, 1, rng);
        const std::vector<float> zeros(op.shape.channels, 0.f), ones(op.shape.channels, 1.f);
        Failures failures;
        for (BackendOps* ops : backends()) {
            const std::string on = ops->name() + ": ";
            const auto [bn_y, stats] = ops->batch_norm2d_forward_training(
                op.shape, in.at("x"), in.at("gamma"), in.at("beta"), zeros, ones);
            const std::vector<float> relu_y = ops->relu_forward(bn_y);
            const auto pair = ops->batch_norm2d_backward(op.shape, in.at("x"),
                                                         ops->relu_backward(relu_y, dy),
                                                         in.at("gamma"), stats.mean, stats.var);
            const auto [fused_y, fused_stats] = ops->batch_norm2d_forward_training(
                op.shape, in.at("x"), in.at("gamma"), in.at("beta"), zeros, ones, /*relu=*/true);
            const auto fused = ops->batch_norm2d_relu_backward(op.shape, in.at("x"), fused_y, dy,
                                                               in.at("gamma"), fused_stats.mean,
                                                               fused_stats.var);
            QVERIFY(std::count(relu_y.begin(), relu_y.end(), 0.f) > 0);  // the mask bites
            for (const auto& [name, a, e] :
                 {std::tuple{"y", &fused_y, &relu_y}, std::tuple{"dx", &fused.dx, &pair.dx},
                  std::tuple{"dgamma", &fused.dgamma, &pair.dgamma},
                  std::tuple{"dbeta", &fused.dbeta, &pair.dbeta},
                  std::tuple{"running_var", &fused_stats.running_var, &stats.running_var}})
                failures.check(dp::test::compare_elementwise(*a, *e, 1.0), 0.0, on + name,
                               "fused", "batch_norm2d then relu");
        }
        QVERIFY2(failures.empty(), failures.text());
    }

    // BatchNorm's statistics of an NHWC x, a strided reduction, are those of
    // the NCHW x (ResNet-18's last-stage shape and an odd one).
    void batch_norm2d_statistics_nhwc_match_nchw() {
        Failures failures;
        std::mt19937 rng(kSeed);
        for (const BatchNorm2dShape& s : {BatchNorm2dShape{.batch = 4, .channels = 16, .h = 4, .w = 4},
                                          BatchNorm2dShape{.batch = 3, .channels = 5, .h = 7, .w = 3}}) {
            const BatchNorm2dOp op{s};
            const Tensors<double> in = op.make_inputs<double>(rng);
            std::vector<double> y(s.size()), mean(s.channels), var(s.channels),
                running_mean(s.channels, 0.0), running_var(s.channels, 1.0);
            ref::batch_norm2d_forward_training(s, in.at("x").data(), in.at("gamma").data(),
                                               in.at("beta").data(), y.data(), mean.data(),
                                               var.data(), running_mean.data(), running_var.data());
            const dp::NchwShape layout{s.batch, s.channels, s.h, s.w};
            std::vector<double> nhwc_mean(s.channels), nhwc_var(s.channels);
            ref::batch_norm2d_statistics_nhwc(s, ref::to_nhwc(layout, in.at("x")).data(),
                                              nhwc_mean.data(), nhwc_var.data());
            const std::string at = batch_norm2d_label("nhwc statistics", s);
            failures.check(dp::test::compare_elementwise(nhwc_mean, mean, 1.0), 1e-12, at + " mean",
                           "NHWC", "NCHW");
            failures.check(dp::test::compare_elementwise(nhwc_var, var, 1.0), 1e-12, at + " var",
                           "NHWC", "NCHW");
        }
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
            uniform<float>(whole.shape.size(), -1, 1, rng);
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
};

QTEST_APPLESS_MAIN(TestBatchNormOps)
#include "test_ops_batch_norm.moc"
