// The CUDA backend's per-channel elementwise grid (plane_grid.h) and
// BatchNorm's element maths (batch_norm_elements.h), fused with the ReLU or
// not, against the flat loop and the reference's ops; and its per-channel
// reduction plan (channel_reduction_plan.h) run on the CPU over random data, block by block and thread by thread as
// the kernels run it: every element read once, the sums within fp32
// rounding of a long double reference, and bit-identical whatever order the
// blocks happen to run in. (Whether the kernels follow the plan on a GPU is
// tests/gpu's to check.)
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "backend/cuda/batch_norm_elements.h"
#include "backend/cuda/channel_reduction_plan.h"
#include "backend/cuda/plane_grid.h"
#include "backend/reference/reference_ops.h"

namespace {

using dp::cuda::ChannelPartial;
using dp::cuda::ChannelReductionPlan;

struct Shape {
    int batch, channels;
    std::size_t plane;
    std::size_t size() const { return std::size_t(batch) * std::size_t(channels) * plane; }
    std::size_t index(int n, int c, std::size_t p) const {
        return (std::size_t(n) * std::size_t(channels) + std::size_t(c)) * plane + p;
    }
};

// The brief's shapes, odd sizes, an empty batch, and more channels than
// one chunk of the workspace holds.
const Shape kShapes[] = {{256, 64, 28 * 28}, {255, 512, 1}, {1, 3, 5 * 5}, {7, 5, 13 * 11},
                         {3, 1, 1},          {33, 17, 31},  {0, 4, 9},     {2, 20000, 1}};
const int kSmCounts[] = {1, 132};

std::vector<float> random_values(std::size_t n, float mean, float spread, unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(mean, spread);
    std::vector<float> values(n);
    for (float& v : values) v = normal(rng);
    return values;
}

// What one element adds: the deviation from the channel's first element
// and its square, as the training statistics' kernel adds them.
struct DeviationTerms {
    const std::vector<float>& x;
    std::size_t plane;
    double shift(int c) const { return plane ? double(x[std::size_t(c) * plane]) : 0.0; }
    ChannelPartial operator()(int c, std::size_t i) const {
        const double d = double(x[i]) - shift(c);
        return {d, d * d};
    }
};

enum class BlockOrder { forward, reversed, shuffled };

// The plan's blocks in `order`, their threads last to first: the kernels'
// sums, as the GPU would leave them, and how often each element was read.
struct Run {
    std::vector<ChannelPartial> totals;
    std::vector<int> reads;
};
template <typename Terms>
Run run_plan(const ChannelReductionPlan& plan, std::size_t size, const Terms& terms,
             BlockOrder order) {
    Run run{std::vector<ChannelPartial>(std::size_t(plan.channels)), std::vector<int>(size)};
    std::vector<ChannelPartial> partials(dp::cuda::kReductionPartialsCapacity);
    const int chunk = dp::cuda::channels_per_chunk(plan);
    for (int first = 0; first < plan.channels; first += chunk) {
        const int chunk_channels = std::min(chunk, plan.channels - first);
        std::vector<std::pair<int, int>> blocks;
        for (int cc = 0; cc < chunk_channels; ++cc)
            for (int s = 0; s < plan.slices; ++s) blocks.emplace_back(cc, s);
        if (order == BlockOrder::reversed) std::reverse(blocks.begin(), blocks.end());
        if (order == BlockOrder::shuffled)
            std::shuffle(blocks.begin(), blocks.end(), std::mt19937(7));
        for (const auto& [cc, slice] : blocks) {
            const int c = first + cc;
            ChannelPartial thread_sums[dp::cuda::kReductionThreads];
            for (int t = dp::cuda::kReductionThreads - 1; t >= 0; --t)
                dp::cuda::for_each_thread_element(plan, c, slice, t, [&](std::size_t i) {
                    ++run.reads.at(i);
                    thread_sums[t] = thread_sums[t] + terms(c, i);
                });
            partials[dp::cuda::partial_index(plan, cc, slice)] = dp::cuda::fold_block(thread_sums);
        }
        for (int cc = 0; cc < chunk_channels; ++cc)
            run.totals[std::size_t(first + cc)] =
                dp::cuda::combine_slices(plan, partials.data(), cc);
    }
    return run;
}

struct Reference {
    long double sum = 0, sum_sq = 0, abs_sum = 0, abs_sum_sq = 0;
};
Reference reference_sums(const Shape& shape, const DeviationTerms& terms, int c) {
    Reference r;
    for (int n = 0; n < shape.batch; ++n)
        for (std::size_t p = 0; p < shape.plane; ++p) {
            const long double d = (long double)terms.x[shape.index(n, c, p)] - terms.shift(c);
            r.sum += d;
            r.sum_sq += d * d;
            r.abs_sum += std::fabs(d);
            r.abs_sum_sq += d * d;
        }
    return r;
}

// Within fp32's rounding of a sum whose terms' magnitudes add to `scale`.
bool within_fp32(double value, long double reference, long double scale) {
    return std::fabs((long double)value - reference) <= 0x1p-24L * scale + 1e-30L;
}

bool bit_identical(const std::vector<ChannelPartial>& a, const std::vector<ChannelPartial>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof a[0]) == 0;
}

QString describe(const Shape& s, int sms) {
    return QStringLiteral("%1x%2x%3 on %4 SMs").arg(s.batch).arg(s.channels).arg(s.plane).arg(sms);
}

}  // namespace

class TestChannelReductionPlan : public QObject {
    Q_OBJECT

private slots:
    // A channel's elements spread over many blocks when the channels alone
    // cannot fill the GPU, each slice non-empty and within the workspace.
    void slicesFillTheGpu() {
        const auto plan = dp::cuda::plan_channel_reduction(256, 64, 28 * 28, 132);
        QVERIFY2(plan.slices >= 16, qPrintable(QString::number(plan.slices)));
        QVERIFY(std::size_t(plan.channels) * std::size_t(plan.slices) >= 132 * 4);
        QCOMPARE(dp::cuda::slice_end(plan, plan.slices - 1), plan.count);
        QVERIFY(dp::cuda::slice_begin(plan, plan.slices - 1) < plan.count);
        // Few elements per channel: one slice, no block reading next to nothing.
        QCOMPARE(dp::cuda::plan_channel_reduction(255, 512, 1, 132).slices, 1);
        for (const Shape& shape : kShapes)
            for (int sms : kSmCounts) {
                const auto p = dp::cuda::plan_channel_reduction(shape.batch, shape.channels,
                                                                shape.plane, sms);
                QVERIFY(p.slices >= 1 && p.slices <= dp::cuda::kMaxSlices);
                QVERIFY(std::size_t(dp::cuda::channels_per_chunk(p)) * std::size_t(p.slices) <=
                        dp::cuda::kReductionPartialsCapacity);
                for (int s = 0; s + 1 < p.slices; ++s)
                    QVERIFY(dp::cuda::slice_begin(p, s) < dp::cuda::slice_end(p, s));
            }
    }

    // A warp's shuffle-down loop leaves lane 0 tree_fold's sum, whatever the
    // lanes past the live ones hold (warp 0 folds only kReductionWarps).
    void shuffleDownMatchesTreeFold() {
        for (int width : {dp::cuda::kReductionWarp, dp::cuda::kReductionWarps}) {
            const std::vector<float> values = random_values(32, 0.f, 1.f, unsigned(width));
            std::vector<double> lanes(values.begin(), values.end());
            for (int l = width; l < 32; ++l) lanes[std::size_t(l)] = 1e300;  // garbage
            std::vector<double> tree(lanes.begin(), lanes.begin() + width);
            const double expected = dp::cuda::tree_fold(tree.data(), width);
            for (int offset = width / 2; offset > 0; offset /= 2) {
                std::vector<double> next = lanes;
                for (int l = 0; l + offset < 32; ++l)
                    next[std::size_t(l)] = lanes[std::size_t(l)] + lanes[std::size_t(l + offset)];
                lanes = next;
            }
            QCOMPARE(lanes[0], expected);
        }
    }

    void everyElementReadOnce() {
        for (const Shape& shape : kShapes)
            for (int sms : kSmCounts) {
                const auto plan = dp::cuda::plan_channel_reduction(shape.batch, shape.channels,
                                                                   shape.plane, sms);
                const std::vector<float> x = random_values(shape.size(), 0.f, 1.f, 1);
                const Run run = run_plan(plan, x.size(), DeviationTerms{x, shape.plane},
                                         BlockOrder::forward);
                QVERIFY2(std::ranges::all_of(run.reads, [](int r) { return r == 1; }),
                         qPrintable(describe(shape, sms)));
            }
    }

    // Values far from zero with a small spread: the shift by the channel's
    // first element keeps the variance from cancelling away.
    void sumsMatchTheReference() {
        for (const Shape& shape : kShapes)
            for (int sms : kSmCounts) {
                const auto plan = dp::cuda::plan_channel_reduction(shape.batch, shape.channels,
                                                                   shape.plane, sms);
                const std::vector<float> x = random_values(shape.size(), 1000.f, 0.01f, 2);
                const DeviationTerms terms{x, shape.plane};
                const Run run = run_plan(plan, x.size(), terms, BlockOrder::forward);
                for (int c = 0; c < shape.channels; ++c) {
                    const Reference r = reference_sums(shape, terms, c);
                    const ChannelPartial got = run.totals[std::size_t(c)];
                    QVERIFY2(within_fp32(got.first, r.sum, r.abs_sum) &&
                                 within_fp32(got.second, r.sum_sq, r.abs_sum_sq),
                             qPrintable(describe(shape, sms) + " channel " + QString::number(c)));
                }
            }
    }

    // The variance the kernel stores (moments_from_sums on the shifted
    // sums) against a two-pass long double one, in fp32.
    void varianceMatchesTwoPass() {
        const Shape shape{256, 8, 28 * 28};
        const auto plan = dp::cuda::plan_channel_reduction(shape.batch, shape.channels,
                                                           shape.plane, 132);
        const std::vector<float> x = random_values(shape.size(), 1000.f, 0.01f, 3);
        const DeviationTerms terms{x, shape.plane};
        const Run run = run_plan(plan, x.size(), terms, BlockOrder::forward);
        const double count = double(plan.count);
        for (int c = 0; c < shape.channels; ++c) {
            long double mean = 0, m2 = 0;
            for (int n = 0; n < shape.batch; ++n)
                for (std::size_t p = 0; p < shape.plane; ++p)
                    mean += x[shape.index(n, c, p)];
            mean /= count;
            for (int n = 0; n < shape.batch; ++n)
                for (std::size_t p = 0; p < shape.plane; ++p) {
                    const long double d = x[shape.index(n, c, p)] - mean;
                    m2 += d * d;
                }
            const ChannelPartial sums = run.totals[std::size_t(c)];
            const double mean_d = sums.first / count;
            const float var = float(std::max(0.0, sums.second / count - mean_d * mean_d));
            const float got_mean = float(terms.shift(c) + mean_d);
            QVERIFY(std::fabs(var - float(m2 / count)) <= 1e-5f * float(m2 / count));
            QVERIFY(std::fabs(got_mean - float(mean)) <= 0x1p-23f * float(std::fabs(mean)));
        }
    }

    // The sums depend on the plan alone: the same bits run after run, with
    // the blocks run in any order.
    void bitIdenticalWhateverTheBlockOrder() {
        for (const Shape& shape : kShapes)
            for (int sms : kSmCounts) {
                const auto plan = dp::cuda::plan_channel_reduction(shape.batch, shape.channels,
                                                                   shape.plane, sms);
                const std::vector<float> x = random_values(shape.size(), 0.5f, 3.f, 4);
                const DeviationTerms terms{x, shape.plane};
                const Run first = run_plan(plan, x.size(), terms, BlockOrder::forward);
                const Run again = run_plan(plan, x.size(), terms, BlockOrder::forward);
                const Run reversed = run_plan(plan, x.size(), terms, BlockOrder::reversed);
                const Run shuffled = run_plan(plan, x.size(), terms, BlockOrder::shuffled);
                QVERIFY2(bit_identical(first.totals, again.totals) &&
                             bit_identical(first.totals, reversed.totals) &&
                             bit_identical(first.totals, shuffled.totals),
                         qPrintable(describe(shape, sms)));
            }
    }

    // A different slicing sums in a different order: the plan, not the
    // run, is what the bits depend on (and the sums still agree in fp32).
    void anotherPlanAgreesWithinRounding() {
        const Shape shape{256, 4, 28 * 28};
        const std::vector<float> x = random_values(shape.size(), 0.5f, 3.f, 5);
        const DeviationTerms terms{x, shape.plane};
        const auto one_sm = dp::cuda::plan_channel_reduction(shape.batch, shape.channels,
                                                             shape.plane, 1);
        const auto many = dp::cuda::plan_channel_reduction(shape.batch, shape.channels,
                                                           shape.plane, 132);
        QVERIFY(one_sm.slices != many.slices);
        const Run a = run_plan(one_sm, x.size(), terms, BlockOrder::forward);
        const Run b = run_plan(many, x.size(), terms, BlockOrder::forward);
        for (int c = 0; c < shape.channels; ++c)
            QCOMPARE(float(a.totals[std::size_t(c)].first), float(b.totals[std::size_t(c)].first));
    }

    // The 2-D grid visits every element of every plane exactly once with
    // its channel i / area % channels, the flat loop's, for planes smaller
    // and larger than a block and more block rows than gridDim.y allows.
    void planeGridVisitsEachElementOnceWithItsChannel() {
        struct GridShape {
            int batch, channels;
            std::size_t area;
        };
        const GridShape shapes[] = {{256, 64, 28 * 28}, {256, 512, 16}, {255, 512, 1},
                                    {3, 5, 7},          {2, 3, 300},    {1, 1, 5000},
                                    {300, 512, 1},      {0, 4, 9},      {4, 3, 0}};
        for (const GridShape& shape : shapes) {
            const dp::cuda::PlaneGrid g = dp::cuda::plane_grid(shape.batch, shape.channels, shape.area);
            const std::size_t size = std::size_t(shape.batch) * std::size_t(shape.channels) * shape.area;
            const QString at = QString("%1x%2x%3").arg(shape.batch).arg(shape.channels).arg(shape.area);
            QVERIFY2(g.blocks_y <= dp::cuda::kMaxBlockRows, qPrintable(at));
            QVERIFY2((size == 0) == (g.blocks_y == 0), qPrintable(at));
            QVERIFY2(g.threads_per_plane * g.planes_per_block == dp::cuda::kPlaneGridThreads,
                     qPrintable(at));
            std::vector<int> visits(size);
            bool channels_right = true;
            for (std::uint32_t by = 0; by < g.blocks_y; ++by)
                for (std::uint32_t bx = 0; bx < g.blocks_x; ++bx)
                    for (std::uint32_t t = 0; t < dp::cuda::kPlaneGridThreads; ++t)
                        dp::cuda::for_each_plane_element(g, bx, by, t, [&](std::size_t i, int c) {
                            ++visits.at(i);
                            channels_right &= c == int(i / shape.area % std::size_t(shape.channels));
                        });
            QVERIFY2(channels_right, qPrintable(at));
            QVERIFY2(std::all_of(visits.begin(), visits.end(), [](int v) { return v == 1; }),
                     qPrintable(at));
        }
        // 16-element planes share a block 16 at a time: no thread idles.
        QCOMPARE(dp::cuda::plane_grid(256, 512, 16).planes_per_block, 16u);
    }

    // The kernels' per-element BatchNorm maths, with the ReLU fused (forward:
    // max(y, 0); backward: dy masked by the fused output) and without,
    // against the reference's batch_norm2d and relu ops in double.
    void batchNormElementsMatchTheReference() {
        const dp::BatchNorm2dShape s{.batch = 4, .channels = 3, .h = 5, .w = 5};
        const std::size_t area = std::size_t(s.h) * s.w;
        std::vector<float> x = random_values(s.size(), 0.5f, 2.f, 3), dy = random_values(s.size(), 0.f, 1.f, 4);
        const std::vector<float> gamma{0.5f, 1.f, 1.5f}, beta{-0.5f, 0.f, 0.5f};
        std::vector<float> mean(3), var(3), running_mean(3, 0.f), running_var(3, 1.f), bn_y(s.size());
        dp::reference::batch_norm2d_forward_training(s, x.data(), gamma.data(), beta.data(), bn_y.data(),
                                                     mean.data(), var.data(), running_mean.data(),
                                                     running_var.data());
        std::vector<float> relu_y(s.size()), masked_dy(s.size());
        dp::reference::relu_forward(s.size(), bn_y.data(), relu_y.data());
        dp::reference::relu_backward(s.size(), relu_y.data(), dy.data(), masked_dy.data());
        std::vector<float> dx(s.size()), dgamma(3), dbeta(3), relu_dx(s.size()), relu_dgamma(3), relu_dbeta(3);
        dp::reference::batch_norm2d_backward(s, x.data(), dy.data(), gamma.data(), mean.data(), var.data(),
                                             dx.data(), dgamma.data(), dbeta.data());
        dp::reference::batch_norm2d_backward(s, x.data(), masked_dy.data(), gamma.data(), mean.data(),
                                             var.data(), relu_dx.data(), relu_dgamma.data(),
                                             relu_dbeta.data());
        // dgamma and dbeta as the kernels sum them: over the masked dy (the reduce's terms).
        double worst = 0;
        int masked = 0;
        const float count = float(s.count_per_channel());
        for (std::size_t i = 0; i < s.size(); ++i) {
            const int c = int(i / area % 3);
            const float inv_std = dp::cuda::batch_norm_inverse_std(var[c], s.eps);
            const auto off = [&](float a, float e) {
                worst = std::max(worst, double(std::abs(a - e)) / std::max(1.0, double(std::abs(e))));
            };
            off(dp::cuda::batch_norm_apply<false>(x[i], gamma[c], beta[c], mean[c], inv_std), bn_y[i]);
            off(dp::cuda::batch_norm_apply<true>(x[i], gamma[c], beta[c], mean[c], inv_std), relu_y[i]);
            const float relu_dy = dp::cuda::batch_norm_output_gradient<true>(dy[i], relu_y[i]);
            masked += relu_dy == 0.f;
            off(relu_dy, masked_dy[i]);
            off(dp::cuda::batch_norm_input_gradient(x[i], dp::cuda::batch_norm_output_gradient<false>(dy[i], 0.f),
                                                    gamma[c], mean[c], inv_std, dbeta[c] / count,
                                                    dgamma[c] / count),
                dx[i]);
            off(dp::cuda::batch_norm_input_gradient(x[i], relu_dy, gamma[c], mean[c], inv_std,
                                                    relu_dbeta[c] / count, relu_dgamma[c] / count),
                relu_dx[i]);
        }
        QVERIFY(masked > 10);
        QVERIFY2(worst < 1e-5, qPrintable(QString::number(worst)));
    }
};

QTEST_GUILESS_MAIN(TestChannelReductionPlan)
#include "test_channel_reduction_plan.moc"
