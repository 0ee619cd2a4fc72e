// Issue 40's step ops on the CPU: the forwarding backend's per-op timer
// (dp-train --profile-ops) against a fake clock, and the sync-free step: a
// counting backend shows that a steady step neither waits for its device,
// nor reads from it, nor allocates, and gathers its batch from the resident
// data set instead of uploading it. The step as a CUDA Graph: a recording
// backend shows which steps ask Backend::run_step for capture, with which
// key, and, answering as CUDA Graphs would, that a replay needs none of the
// host work of the step it replays. ResNet-18's BatchNorm+ReLU pairs: a
// backend counting those ops shows which a step runs fused.
#include <QtTest>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <numeric>
#include <vector>

#include "backend/forwarding_backend.h"
#include "backend/loss_totals.h"
#include "backend/op_profiler.h"
#include "backend/reference/reference_backend.h"
#include "backend/step_graph.h"
#include "core/error.h"
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

// Counts the BatchNorm training and ReLU ops by name, fused and unfused:
// which pairs a step runs fused (issue 40 item 3).
class BatchNormReluCounter final : public dp::ForwardingBackend {
public:
    using ForwardingBackend::ForwardingBackend;
    // Calls of: batch_norm2d_forward_training, batch_norm2d_backward,
    // relu_forward, relu_backward, and the fused forward and backward.
    std::array<int, 6> calls{};

    void batch_norm2d_forward_training(const dp::BatchNorm2dShape& s, const float* x,
                                       const float* gamma, const float* beta, float* y,
                                       float* mean, float* var, float* running_mean,
                                       float* running_var) override {
        ++calls[0];
        ForwardingBackend::batch_norm2d_forward_training(s, x, gamma, beta, y, mean, var,
                                                         running_mean, running_var);
    }
    void batch_norm2d_backward(const dp::BatchNorm2dShape& s, const float* x, const float* dy,
                               const float* gamma, const float* mean, const float* var,
                               float* dx, float* dgamma, float* dbeta) override {
        ++calls[1];
        ForwardingBackend::batch_norm2d_backward(s, x, dy, gamma, mean, var, dx, dgamma, dbeta);
    }
    void relu_forward(std::size_t n, const float* x, float* y) override {
        ++calls[2];
        ForwardingBackend::relu_forward(n, x, y);
    }
    void relu_backward(std::size_t n, const float* y, const float* dy, float* dx) override {
        ++calls[3];
        ForwardingBackend::relu_backward(n, y, dy, dx);
    }
    void batch_norm2d_relu_forward_training(const dp::BatchNorm2dShape& s, const float* x,
                                            const float* gamma, const float* beta, float* y,
                                            float* mean, float* var, float* running_mean,
                                            float* running_var) override {
        ++calls[4];
        ForwardingBackend::batch_norm2d_relu_forward_training(s, x, gamma, beta, y, mean, var,
                                                              running_mean, running_var);
    }
    void batch_norm2d_relu_backward(const dp::BatchNorm2dShape& s, const float* x,
                                    const float* y, const float* dy, const float* gamma,
                                    const float* mean, const float* var, float* dx,
                                    float* dgamma, float* dbeta) override {
        ++calls[5];
        ForwardingBackend::batch_norm2d_relu_backward(s, x, y, dy, gamma, mean, var, dx, dgamma,
                                                      dbeta);
    }
};

// Each mark 1 ms after the previous one. While `capturing` points to a
// list, the slots marked go into it: what a captured graph's event record
// nodes mark again on each replay.
class TickClock final : public dp::OpClock {
public:
    explicit TickClock(std::size_t capacity) : times_(capacity) {}
    std::size_t capacity() const override { return times_.size(); }
    void mark(std::size_t slot) override {
        now_ += 1e-3;
        times_[slot] = now_;
        if (capturing) capturing->push_back(slot);
    }
    double seconds(std::size_t from, std::size_t to) override { return times_[to] - times_[from]; }
    std::vector<std::size_t>* capturing = nullptr;

private:
    std::vector<double> times_;
    double now_ = 0;
};

// Records every request that reaches Backend::run_step. With `graphs`, it
// answers as CudaBackend with DP_CUDA_GRAPHS=1 does (a StepGraphBook
// decides): a capture runs the work once, noting the phase clock's marks;
// a replay runs none of it and marks those slots again, as the graph's
// event nodes do. Only what a replay does on the device is missing: a
// replayed step leaves the parameters and the loss sums as they were.
class StepRecordingBackend final : public dp::ForwardingBackend {
public:
    StepRecordingBackend(std::unique_ptr<dp::Backend> inner, bool graphs)
        : ForwardingBackend(std::move(inner)), book_(graphs) {}

    std::unique_ptr<dp::OpClock> make_op_clock(std::size_t capacity) override {
        auto clock = std::make_unique<TickClock>(capacity);
        clock_ = clock.get();  // the replica's phase clock, its only one
        return clock;
    }
    dp::StepGraphAction run_step(const dp::StepGraphRequest& request, dp::StepWork step) override {
        requests.push_back(request);
        const dp::StepGraphAction action = book_.decide(request);
        if (action == dp::StepGraphAction::replay) {
            for (const std::size_t slot : graph_marks_[book_.graph_index()]) clock_->mark(slot);
        } else if (action == dp::StepGraphAction::capture) {
            graph_marks_.resize(book_.graph_index() + 1);
            clock_->capturing = &graph_marks_[book_.graph_index()];
            step();
            clock_->capturing = nullptr;
            book_.captured(request.key, true);
        } else {
            step();
        }
        actions.push_back(action);
        return action;
    }

    // The indices each gather read: a graph replays the addresses it captured.
    void gather_rows(const float* rows, std::size_t row_floats, const float* indices,
                     std::size_t count, float* out) override {
        gathered_from.push_back(indices);
        ForwardingBackend::gather_rows(rows, row_floats, indices, count, out);
    }

    std::vector<dp::StepGraphRequest> requests;
    std::vector<dp::StepGraphAction> actions;
    std::vector<const float*> gathered_from;

private:
    dp::StepGraphBook book_;
    TickClock* clock_ = nullptr;
    std::vector<std::vector<std::size_t>> graph_marks_;
};

// LeNet (or `config.model`) steps of `batch` rows over `set` through a
// ReplicaGroup whose devices' backends record their run_step requests.
// `resident`: the epoch's order made resident first, as dp-train does
// unless DP_CUDA_STEP_SYNC=1. `lr_of_step`: each step's learning rate.
// With `profiled_step` >= 0, an OpProfiler outside each recorder times that step.
struct RecordedRun {
    std::vector<StepRecordingBackend*> recorders;  // per device, owned by the group
    std::unique_ptr<dp::ReplicaGroup> group;
    std::vector<dp::DeviceStepTiming> timings;  // device 0's, per step
};
RecordedRun record_steps(const dp::TrainConfig& config, const dp::Dataset& set, int steps,
                         bool resident, bool graphs = false,
                         const std::function<float(int)>& lr_of_step = {},
                         int profiled_step = -1) {
    RecordedRun run;
    run.recorders.resize(config.devices.size(), nullptr);
    std::vector<dp::OpProfiler*> profilers(config.devices.size(), nullptr);
    const dp::BackendWrapper recording = [&](std::unique_ptr<dp::Backend> backend, int local) {
        auto recorder = std::make_unique<StepRecordingBackend>(std::move(backend), graphs);
        run.recorders[std::size_t(local)] = recorder.get();
        if (profiled_step < 0) return std::unique_ptr<dp::Backend>(std::move(recorder));
        auto profiler = std::make_unique<dp::OpProfiler>(std::move(recorder));
        profilers[std::size_t(local)] = profiler.get();
        return std::unique_ptr<dp::Backend>(std::move(profiler));
    };
    run.group = std::make_unique<dp::ReplicaGroup>(dp::select_devices(config.devices), config,
                                                   dp::SampleShape{set.channels, set.height, set.width},
                                                   10, recording);
    dp::EpochSampler sampler(set.count, 0, false);
    const std::vector<int> file_order(sampler.order(0).begin(), sampler.order(0).end());
    const int batches = (set.count + config.batch_size - 1) / config.batch_size;
    std::span<const int> order = file_order;
    for (int step = 0; step < steps; ++step) {
        const int batch = step % batches;
        if (batch == 0 && resident) order = run.group->start_epoch(set, file_order);
        const int first = batch * config.batch_size;
        const int rows = std::min(config.batch_size, set.count - first);
        if (step == profiled_step)
            for (auto* profiler : profilers) profiler->start_step();
        run.timings.push_back(
            run.group->train_step(set, order.subspan(std::size_t(first), std::size_t(rows)),
                                  lr_of_step ? lr_of_step(step) : config.lr)[0]);
        if (step == profiled_step)
            run.group->on_each_device([&](int local) { profilers[std::size_t(local)]->end_step(); });
    }
    return run;
}

dp::TrainConfig step_config(const std::string& model, int devices, int batch) {
    dp::TrainConfig config;
    config.model = model;
    config.batch_size = batch;
    config.lr = 0.05f;
    for (int i = 0; i < devices; ++i) config.devices.push_back("cpu:" + std::to_string(i));
    return config;
}

dp::Dataset fashion_mnist_train(int count) {
    return dp::load_mnist_format(dp::default_fashion_mnist_dir(), count, 0).train;
}

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

    // Issue 40 item 3: ResNet-18 has 17 BatchNorms and 17 ReLUs, 9 of them
    // plain BN+ReLU pairs (the stem's, and each of the 8 blocks' bn1; bn2's
    // relu follows the shortcut's add). A training step runs those 9 through
    // the fused ops, each way, and the other 8 BatchNorms and ReLUs unfused;
    // DP_FUSED_BN_RELU=0 gives the old 17 of each and no fused op.
    void resnet18StepFusesEachBatchNormReluPair_data() {
        QTest::addColumn<QByteArray>("switch_value");
        QTest::addColumn<QList<int>>("expected");  // BatchNormReluCounter::calls
        QTest::newRow("unset: fused") << QByteArray() << QList<int>{8, 8, 8, 8, 9, 9};
        QTest::newRow("DP_FUSED_BN_RELU=1") << QByteArray("1") << QList<int>{8, 8, 8, 8, 9, 9};
        QTest::newRow("DP_FUSED_BN_RELU=0") << QByteArray("0") << QList<int>{17, 17, 17, 17, 0, 0};
    }
    void resnet18StepFusesEachBatchNormReluPair() {
        QFETCH(QByteArray, switch_value);
        QFETCH(QList<int>, expected);
        if (!std::filesystem::exists(dp::default_fashion_mnist_dir()))
            QSKIP("Fashion-MNIST not found: run scripts/setup (installs dataset-fashion-mnist)");
        constexpr int batch = 2;
        const dp::Dataset set = dp::load_mnist_format(dp::default_fashion_mnist_dir(), 2 * batch, 0).train;
        dp::TrainConfig config;
        config.model = "resnet18";
        config.batch_size = batch;
        config.devices = {"cpu:0"};
        BatchNormReluCounter* counter = nullptr;
        const dp::BackendWrapper counting = [&](std::unique_ptr<dp::Backend> backend, int) {
            auto wrapped = std::make_unique<BatchNormReluCounter>(std::move(backend));
            counter = wrapped.get();
            return std::unique_ptr<dp::Backend>(std::move(wrapped));
        };
        // The switch is read as the model is built.
        if (switch_value.isNull())
            qunsetenv("DP_FUSED_BN_RELU");
        else
            qputenv("DP_FUSED_BN_RELU", switch_value);
        auto group = std::make_unique<dp::ReplicaGroup>(dp::select_devices(config.devices), config,
                                                        dp::SampleShape{set.channels, set.height, set.width},
                                                        10, counting);
        qunsetenv("DP_FUSED_BN_RELU");
        QVERIFY(counter);
        dp::EpochSampler sampler(set.count, 0, true);
        const auto order = group->start_epoch(set, sampler.order(0));
        group->train_step(set, order.subspan(0, std::size_t(batch)), 0.05f);
        const std::array<int, 6> first = counter->calls;
        group->train_step(set, order.subspan(std::size_t(batch), std::size_t(batch)), 0.05f);
        QList<int> in_step;
        for (std::size_t op = 0; op < first.size(); ++op) in_step.push_back(counter->calls[op] - first[op]);
        QCOMPARE(in_step, expected);
        const dp::Backend::LossResult loss = group->take_loss();
        QVERIFY(loss.loss_sum > 0 && std::isfinite(loss.loss_sum));
    }

    // A bad value is an error naming the variable, before any training.
    void aBadFusionSwitchIsAnErrorNamingIt() {
        qputenv("DP_FUSED_BN_RELU", "yes please");
        dp::TrainConfig config;
        config.model = "resnet18";
        config.batch_size = 2;
        config.devices = {"cpu:0"};
        QString message;
        try {
            dp::ReplicaGroup group(dp::select_devices(config.devices), config, {1, 28, 28}, 10, {});
        } catch (const dp::Error& error) {
            message = error.what();
        }
        qunsetenv("DP_FUSED_BN_RELU");
        QVERIFY2(message.contains("DP_FUSED_BN_RELU must be 1 or 0"), qPrintable(message));
    }

    // dp-train's step on one device goes through Backend::run_step once a
    // step, asking for capture, with a key that follows the step: its rows
    // (the last partial batch's 8), its global batch, its learning rate (a
    // warm-up ramp, then constant) and the fixed buffers of the replica.
    void eachStepOfOneDeviceAsksRunStepOnceWithItsKey() {
        if (!std::filesystem::exists(dp::default_fashion_mnist_dir()))
            QSKIP("Fashion-MNIST not found: run scripts/setup (installs dataset-fashion-mnist)");
        const dp::Dataset set = fashion_mnist_train(40);  // batches of 16, 16, 8
        const auto lr_of_step = [](int step) { return step < 3 ? 0.01f * float(step + 1) : 0.05f; };
        const RecordedRun run = record_steps(step_config("lenet", 1, 16), set, 6, true, false, lr_of_step);
        const auto& requests = run.recorders[0]->requests;
        QCOMPARE(requests.size(), std::size_t(6));
        const int rows[] = {16, 16, 8, 16, 16, 8};
        for (int step = 0; step < 6; ++step) {
            const dp::StepGraphRequest& request = requests[std::size_t(step)];
            QVERIFY2(request.capturable, qPrintable(QString("step %1").arg(step)));
            QCOMPARE(request.key.rows, rows[step]);
            QCOMPARE(request.key.global_batch, rows[step]);
            QCOMPARE(request.key.micro_batches, 1);
            QCOMPARE(request.key.lr_bits, dp::float_bits(lr_of_step(step)));
            QCOMPARE(request.key.weight_decay_bits, dp::float_bits(0.f));
            QCOMPARE(request.key.dropout_step, std::uint64_t(0));
            QVERIFY(std::all_of(request.key.buffers.begin(), request.key.buffers.end(),
                                [](const void* buffer) { return buffer != nullptr; }));
            QVERIFY(request.key.buffers == requests[0].key.buffers);  // the same memory every step
        }
        // Each step gathers its images and labels by the indices at one
        // address, wherever its batch lies in the epoch's order.
        const auto& gathered = run.recorders[0]->gathered_from;
        QCOMPARE(gathered.size(), std::size_t(12));
        QVERIFY(std::all_of(gathered.begin(), gathered.end(),
                            [&](const float* indices) { return indices == gathered[0]; }));
        QVERIFY(requests[3].key == requests[4].key);  // steady: the graph of step 4 replays at step 5
        QVERIFY(!(requests[3].key == requests[5].key));
        QVERIFY(!(requests[0].key == requests[1].key));  // the warm-up's lr
    }

    // Steps that cannot be a graph still go through run_step, not capturable:
    // two replicas (their all-reduce), a batch gathered on the host
    // (DP_CUDA_STEP_SYNC=1 makes nothing resident), dropout, a straggler, the
    // step the per-op timer times; DataParallel's step does not use run_step.
    // Accumulation on one device can be a graph, its key with 2 micro-batches.
    void stepsThatCannotBeGraphsAskNoCapture_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("devices");
        QTest::addColumn<bool>("resident");
        QTest::addColumn<QString>("change");
        QTest::addColumn<QString>("capturable");  // per step, of device 0; "" for no run_step
        QTest::newRow("2 devices, ring") << "lenet" << 2 << true << "" << "---";
        QTest::newRow("batch gathered on the host") << "lenet" << 1 << false << "" << "---";
        QTest::newRow("dropout") << "mnistnet" << 1 << true << "" << "---";
        QTest::newRow("straggler") << "lenet" << 1 << true << "straggler" << "---";
        QTest::newRow("step 2 profiled") << "lenet" << 1 << true << "profile" << "+-+";
        QTest::newRow("dataparallel") << "lenet" << 2 << true << "dataparallel" << "";
        QTest::newRow("1 device, accumulate 2") << "lenet" << 1 << true << "accumulate" << "+++";
    }
    void stepsThatCannotBeGraphsAskNoCapture() {
        QFETCH(QString, model);
        QFETCH(int, devices);
        QFETCH(bool, resident);
        QFETCH(QString, change);
        QFETCH(QString, capturable);
        if (!std::filesystem::exists(dp::default_fashion_mnist_dir()))
            QSKIP("Fashion-MNIST not found: run scripts/setup (installs dataset-fashion-mnist)");
        const dp::Dataset set = fashion_mnist_train(48);
        dp::TrainConfig config = step_config(model.toStdString(), devices, 16);
        if (change == "straggler") config.slow_devices = {"cpu:0=1.01"};
        if (change == "dataparallel") config.allreduce = dp::AllReduceStrategy::dataparallel;
        if (change == "accumulate") config.accumulate = 2;
        const RecordedRun run = record_steps(config, set, 3, resident, false, {},
                                             change == "profile" ? 1 : -1);
        for (const StepRecordingBackend* recorder : run.recorders) {
            QString asked;
            for (const auto& request : recorder->requests) asked += request.capturable ? '+' : '-';
            QCOMPARE(asked, capturable);
            if (change == "accumulate")
                for (const auto& request : recorder->requests) QCOMPARE(request.key.micro_batches, 2);
        }
    }

    // Answered as CUDA Graphs answer (warm-up, capture, then replays that
    // run none of the step's work), the caller needs nothing the work does
    // on the host: the replayed steps' phases come from the graph's marks
    // alone (1 ms a lap on the tick clock), their all-reduce wait is none,
    // and the parameters and the loss sums are exactly those of the two
    // steps that ran, as in a run of just those two. (A caller that noted its
    // laps inside the work would time the replays at 0; one that read the
    // loss inside it would count steps that did not run.)
    void aReplayNeedsNoHostWorkOfTheStep() {
        if (!std::filesystem::exists(dp::default_fashion_mnist_dir()))
            QSKIP("Fashion-MNIST not found: run scripts/setup (installs dataset-fashion-mnist)");
        const dp::Dataset set = fashion_mnist_train(64);
        const dp::TrainConfig config = step_config("lenet", 1, 16);
        const RecordedRun graphed = record_steps(config, set, 4, true, true);
        for (int step = 2; step < 4; ++step) {  // the replays
            const dp::DeviceStepTiming& timing = graphed.timings[std::size_t(step)];
            QCOMPARE(timing.shard, 16);
            for (const double phase : {timing.data, timing.forward, timing.backward, timing.update})
                QVERIFY2(std::abs(phase - 1e-3) < 1e-9,
                         qPrintable(QString("step %1: a lap of %2 s").arg(step).arg(phase)));
            QCOMPARE(timing.allreduce, 0.0);
        }
        const auto& actions = graphed.recorders[0]->actions;
        using A = dp::StepGraphAction;
        QVERIFY(actions == (std::vector<A>{A::warm_up, A::capture, A::replay, A::replay}));

        const RecordedRun two_steps = record_steps(config, set, 2, true);
        QVERIFY(graphed.group->parameters(0) == two_steps.group->parameters(0));
        const dp::Backend::LossResult replayed = graphed.group->take_loss(),
                                      ran = two_steps.group->take_loss();
        QCOMPARE(replayed.loss_sum, ran.loss_sum);
        QCOMPARE(replayed.correct, ran.correct);
    }
};

QTEST_GUILESS_MAIN(TestStepOps)
#include "test_step_ops.moc"
