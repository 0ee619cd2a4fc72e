// Losses: log softmax, softmax cross-entropy and the negative log-likelihood,
// with arg-max ties.
// Data-driven checks (a) to (c) of op_test_support.h on every op case below,
// then hand-computed values, which run on both backends.

#include "op_family_test.h"

namespace {

using namespace dp::op_test;

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

using OpCase = std::variant<LogSoftmaxOp, ClassificationLossOp>;

const std::vector<OpCase>& op_cases() {
    static const std::vector<OpCase> cases{
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

}  // namespace

class TestLossOps : public OpFamilyTest {
    Q_OBJECT

    void add_rows() override { add_op_case_rows(op_cases()); }
    void run(OpCheck check) override { run_op_check(op_cases(), check, reference_, onednn_); }

private slots:
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
};

QTEST_APPLESS_MAIN(TestLossOps)
#include "test_ops_losses.moc"
