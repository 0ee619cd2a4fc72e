// Issue 40's step ops on the CPU: the forwarding backend's per-op timer
// (dp-train --profile-ops) against a fake clock, and the sync-free step: a
// counting backend shows that a steady step neither waits for its device,
// nor reads from it, nor allocates, and gathers its batch from the resident
// data set instead of uploading it.
#include <QtTest>

#include <array>
#include <filesystem>
#include <memory>
#include <numeric>
#include <vector>

#include "backend/forwarding_backend.h"
#include "backend/loss_totals.h"
#include "backend/op_profiler.h"
#include "backend/reference/reference_backend.h"
#include "data/dataset.h"
#include "data/epoch_sampler.h"
#include "devices/device.h"
#include "train/replica_group.h"

namespace {

// Times every mark as if each call took exactly 1 ms and 0.5 ms passed
// between calls: a call's start (an even slot) comes 0.5 ms after the
// previous mark, its end (an odd slot) 1 ms after its start.
class FakeClock final : public dp::OpClock {
public:
    std::size_t capacity() const override { return times_.size(); }
    void mark(std::size_t slot) override {
        now_ += slot % 2 == 1 ? 1e-3 : (slot == 0 ? 0.0 : 0.5e-3);
        times_[slot] = now_;
    }
    double seconds(std::size_t from, std::size_t to) override { return times_[to] - times_[from]; }

private:
    std::array<double, 64> times_{};
    double now_ = 0;
};

// Counts the calls of each op family (issue 40's counting backend).
class CountingBackend final : public dp::ForwardingBackend {
public:
    using ForwardingBackend::ForwardingBackend;
    std::int64_t calls(dp::OpFamily family) const { return calls_[std::size_t(family)]; }
    std::array<std::int64_t, dp::kOpFamilies> all() const { return calls_; }

protected:
    void before_op(dp::OpFamily family) override { ++calls_[std::size_t(family)]; }

private:
    std::array<std::int64_t, dp::kOpFamilies> calls_{};
};

const dp::OpProfileRow* row_named(const std::vector<dp::OpProfileRow>& rows, const std::string& name) {
    for (const auto& row : rows)
        if (row.name == name) return &row;
    return nullptr;
}

}  // namespace

class TestStepOps : public QObject {
    Q_OBJECT

private slots:
    // Two steps of five calls (a convolution twice and a relu in layer 1, a
    // linear layer in layer 2, SGD outside layers) at 1 ms a call: each
    // family's and layer's ms per step and share, exactly.
    void profilerTabulatesFamiliesAndLayersFromItsClock() {
        dp::OpProfiler profiler(std::make_unique<dp::ReferenceBackend>(), 32,
                                std::make_unique<FakeClock>());
        const dp::Conv2dShape conv{.batch = 1, .in_channels = 1, .in_h = 2, .in_w = 2,
                                   .out_channels = 1, .kernel = 1};
        const dp::LinearShape linear{.batch = 1, .in_features = 4, .out_features = 2};
        std::vector<float> x(4, 1.f), w(8, 0.5f), bias(2, 0.f), y(4), z(2), grad(8, 1.f);
        const std::string first = "layer 1 conv1", second = "layer 2 fc";
        profiler.relu_forward(4, x.data(), y.data());  // before start_step: not timed
        for (int step = 0; step < 2; ++step) {
            profiler.start_step();
            {
                const dp::LayerScope scope(first);
                profiler.conv2d_forward(conv, x.data(), w.data(), nullptr, y.data());
                profiler.conv2d_forward(conv, y.data(), w.data(), nullptr, x.data());
                profiler.relu_forward(4, x.data(), y.data());
            }
            {
                const dp::LayerScope scope(second);
                profiler.linear_forward(linear, y.data(), w.data(), bias.data(), z.data());
            }
            profiler.sgd_update(8, 0.1f, w.data(), grad.data());
            profiler.end_step();
        }
        const dp::OpProfile profile = profiler.profile();
        QCOMPARE(profile.steps, std::int64_t(2));
        QCOMPARE(profile.op_seconds, 5e-3);
        QCOMPARE(profile.step_seconds, 7e-3);  // 5 calls and 4 gaps of 0.5 ms
        QCOMPARE(profile.families.size(), std::size_t(4));
        QCOMPARE(profile.families[0].name, std::string("conv forward"));  // the longest first
        QCOMPARE(profile.families[0].seconds, 2e-3);
        QCOMPARE(profile.families[0].share, 0.4);
        QCOMPARE(profile.families[0].calls, 2.0);
        for (const char* family : {"elementwise", "linear", "update"}) {
            const auto* row = row_named(profile.families, family);
            QVERIFY2(row, family);
            QCOMPARE(row->seconds, 1e-3);
            QCOMPARE(row->share, 0.2);
            QCOMPARE(row->calls, 1.0);
        }
        QCOMPARE(profile.layers.size(), std::size_t(3));
        QCOMPARE(profile.layers[0].name, first);
        QCOMPARE(profile.layers[0].seconds, 3e-3);
        QCOMPARE(profile.layers[0].share, 0.6);
        QCOMPARE(profile.layers[1].name, second);
        QCOMPARE(profile.layers[1].share, 0.2);
        QVERIFY(profile.layers[2].name.starts_with("outside layers"));
        QCOMPARE(profile.layers[2].share, 0.2);
        for (const auto* rows : {&profile.families, &profile.layers})
            QCOMPARE(std::accumulate(rows->begin(), rows->end(), 0.0,
                                     [](double sum, const dp::OpProfileRow& row) { return sum + row.share; }),
                     1.0);
        const std::string table = profile.table("op profile of cpu:0");
        QVERIFY2(table.find("conv forward") != std::string::npos, table.c_str());
        QVERIFY2(table.find("layer 1 conv1") != std::string::npos, table.c_str());
        QVERIFY2(table.find("40.0%") != std::string::npos, table.c_str());
    }

    // The resident set's gather picks the rows the host gather picks, and the
    // loss summed into totals is the sum of the losses returned, zeroed by its take.
    void hostGatherAndLossTotalsMatchTheSynchronousOps() {
        dp::ReferenceBackend backend;
        const std::vector<float> rows{0, 1, 10, 11, 20, 21, 30, 31};  // 4 rows of 2
        const std::vector<float> order{3, 0, 2};
        QCOMPARE(dp::gathered_row_start(order.data(), 0, 2), std::size_t(6));
        std::vector<float> out(6);
        backend.gather_rows(rows.data(), 2, order.data(), 3, out.data());
        QCOMPARE(out, (std::vector<float>{30, 31, 0, 1, 20, 21}));

        const std::vector<float> logits{2, 0, 0, 1, 0.5f, 3}, labels{0, 1};
        auto totals = backend.allocate(dp::Backend::kLossTotalsFloats);
        const auto once = backend.softmax_cross_entropy(2, 3, logits.data(), labels.data(), nullptr, 1);
        for (int i = 0; i < 2; ++i)
            backend.add_loss_to_totals(dp::Backend::LossKind::softmax_cross_entropy, 2, 3,
                                       logits.data(), labels.data(), nullptr, 1, totals.get());
        const auto taken = backend.take_loss_totals(totals.get());
        QCOMPARE(taken.loss_sum, once.loss_sum + once.loss_sum);
        QCOMPARE(taken.correct, 2 * once.correct);
        const auto again = backend.take_loss_totals(totals.get());
        QCOMPARE(again.loss_sum, 0.0);
        QCOMPARE(again.correct, std::int64_t(0));

        // The GPU kernels' bookkeeping of a bad label: zeroed totals have
        // none, the first one noted (row 0 included) stays.
        dp::LossTotals sums{};
        QCOMPARE(dp::bad_row_of(sums), -1);
        dp::note_bad_row(sums, 0, 12);
        dp::note_bad_row(sums, 5, 3);
        QCOMPARE(dp::bad_row_of(sums), 0);
        QCOMPARE(sums.bad_label, 12);
    }

    void steadyStepsNeverWaitReadOrAllocate_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("devices");
        QTest::addColumn<int>("batch");
        QTest::newRow("lenet, 1 device") << "lenet" << 1 << 16;
        QTest::newRow("lenet, 2 devices") << "lenet" << 2 << 16;
        QTest::newRow("resnet18, 1 device") << "resnet18" << 1 << 4;
        QTest::newRow("resnet18, 2 devices") << "resnet18" << 2 << 4;
    }
    // Steps 2 and 3 of a run (step 1 builds plans and tunes kernels): no
    // synchronize(), no download (the loss stays in device sums), no
    // allocation and no upload (the batch is gathered on the device from the
    // resident set by the epoch's order) on any device. The loss read after
    // them is every step's.
    void steadyStepsNeverWaitReadOrAllocate() {
        QFETCH(QString, model);
        QFETCH(int, devices);
        QFETCH(int, batch);
        if (!std::filesystem::exists(dp::default_fashion_mnist_dir()))
            QSKIP("Fashion-MNIST not found: run scripts/setup (installs dataset-fashion-mnist)");
        const dp::Dataset set = dp::load_mnist_format(dp::default_fashion_mnist_dir(), 3 * batch, 0).train;
        dp::TrainConfig config;
        config.model = model.toStdString();
        config.batch_size = batch;
        config.bucket_mb = 0.1;  // several buckets, so several all-reduces a step
        for (int i = 0; i < devices; ++i) config.devices.push_back("cpu:" + std::to_string(i));
        std::vector<CountingBackend*> counters(std::size_t(devices), nullptr);
        const dp::BackendWrapper counting = [&](std::unique_ptr<dp::Backend> backend, int local) {
            auto counter = std::make_unique<CountingBackend>(std::move(backend));
            counters[std::size_t(local)] = counter.get();
            return std::unique_ptr<dp::Backend>(std::move(counter));
        };
        dp::ReplicaGroup group(dp::select_devices(config.devices), config,
                               {set.channels, set.height, set.width}, 10, counting);
        dp::EpochSampler sampler(set.count, 0, true);
        const auto order = group.start_epoch(set, sampler.order(0));
        group.train_step(set, order.subspan(0, std::size_t(batch)), 0.05f);
        std::vector<std::array<std::int64_t, dp::kOpFamilies>> before;
        for (const auto* counter : counters) before.push_back(counter->all());
        for (int step = 1; step < 3; ++step)
            group.train_step(set, order.subspan(std::size_t(step * batch), std::size_t(batch)), 0.05f);
        for (int d = 0; d < devices; ++d) {
            const auto in_steps = [&](dp::OpFamily family) {
                return counters[std::size_t(d)]->calls(family) - before[std::size_t(d)][std::size_t(family)];
            };
            for (const auto family : {dp::OpFamily::wait, dp::OpFamily::download,
                                      dp::OpFamily::allocate, dp::OpFamily::upload})
                QVERIFY2(in_steps(family) == 0,
                         qPrintable(QString("device %1: %2 %3 calls in 2 steady steps")
                                        .arg(d).arg(in_steps(family)).arg(dp::op_family_name(family))));
            QCOMPARE(in_steps(dp::OpFamily::data), std::int64_t(4));  // images and labels, each step
            QVERIFY(in_steps(dp::OpFamily::loss) == 2);
        }
        const dp::Backend::LossResult loss = group.take_loss();
        QVERIFY(loss.loss_sum > 0 && std::isfinite(loss.loss_sum));
        QVERIFY(loss.correct >= 0 && loss.correct <= 3 * batch);
    }
};

QTEST_GUILESS_MAIN(TestStepOps)
#include "test_step_ops.moc"
