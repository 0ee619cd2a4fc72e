// The self-test's training harness (engine/selftest/training_checks.h) on
// CPU devices: what dp-gpu-selftest runs on GPUs, minus the GPU. Its first
// GPU run failed in this harness's own set-up (a batch order that dangled),
// which no test without a GPU could see; these run it in CI.
#include <QtTest>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <string>

#include "backend/backend_factory.h"
#include "core/error.h"
#include "devices/device.h"
#include "selftest/training_checks.h"

class TestSelftestHarness : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        if (!std::filesystem::exists(dp::default_fashion_mnist_dir()))
            QSKIP("Fashion-MNIST not found: run scripts/setup (installs dataset-fashion-mnist)");
        data_ = dp::selftest::training_subset();
    }

    // The GPU check's shapes on the CPU: two replicas on one core, and two
    // cores, each against one device at the same global batch.
    void replicasTrainLikeOneDevice_data() {
        QTest::addColumn<QString>("devices");
        QTest::newRow("cpu:0x2") << "cpu:0x2";
        QTest::newRow("cpu:0,cpu:1") << "cpu:0,cpu:1";
    }
    void replicasTrainLikeOneDevice() {
        QFETCH(QString, devices);
        std::vector<std::string> ids;
        for (const QString& id : devices.split(',')) ids.push_back(id.toStdString());
        const std::string summary = dp::selftest::training_matches({"cpu:0"}, ids, data_, 20, 5e-5);
        qInfo("%s", summary.c_str());
        QVERIFY(summary.find("20 steps") != std::string::npos);
    }

    // A tolerance no run can meet fails with the measured difference named.
    void aDifferenceOverTheToleranceFails() {
        try {
            dp::selftest::training_matches({"cpu:0"}, {"cpu:0x2"}, data_, 3, -1);
            QFAIL("a negative tolerance passed");
        } catch (const dp::Error& error) {
            QVERIFY2(std::string(error.what()).find("more than") != std::string::npos, error.what());
        }
    }

    // More steps than the subset has batches: an error, never indices read
    // past the order's end.
    void tooFewImagesIsAnErrorNotGarbage() {
        QVERIFY_THROWS_EXCEPTION(dp::Error, dp::selftest::train_lenet({"cpu:0"}, data_, 21));
    }

    // The allocation check passes when the probe stays put and names the
    // probe that moved when it does not.
    void stepAllocationsCompareTheProbe() {
        const auto steady = [] { return std::vector<std::size_t>{7, 8}; };
        QVERIFY(dp::selftest::steps_allocate_nothing({"cpu:0x2"}, data_, steady).find(
                    "allocated nothing") != std::string::npos);
        std::atomic<std::size_t> calls{0};
        const auto moving = [&] { return std::vector<std::size_t>{7, calls++}; };
        try {
            dp::selftest::steps_allocate_nothing({"cpu:0"}, data_, moving);
            QFAIL("a moving probe passed");
        } catch (const dp::Error& error) {
            QVERIFY2(std::string(error.what()).find("probe 1") != std::string::npos, error.what());
        }
    }

    // The step_graphs check's run on the CPU: dp-train's step over 3 epochs
    // of 2 full batches and a partial one, each through one run_step (a CPU
    // backend runs it eagerly); a backend put in place of the device's own
    // (as the check puts its CUDA ones) trains with the same bits.
    void residentStepsGoThroughRunStepOnceEach() {
        const int samples = 2 * dp::selftest::kBatch + 40;
        const auto run = dp::selftest::train_lenet_resident("cpu:0", data_, samples, 3);
        QCOMPARE(QString::fromStdString(dp::selftest::step_actions_text(run.actions)),
                 QString("eager eager eager eager eager eager eager eager eager"));
        QVERIFY(run.loss.loss_sum > 0 && std::isfinite(run.loss.loss_sum));
        QVERIFY(run.loss.correct >= 0 && run.loss.correct <= 3 * samples);
        const dp::DeviceInfo cpu = dp::select_devices({"cpu:0"}).front();
        const auto replaced = dp::selftest::train_lenet_resident(
            "cpu:0", data_, samples, 3, [&](std::unique_ptr<dp::Backend>, int) {
                return dp::make_backend(cpu, dp::Precision::fp32);
            });
        QVERIFY(replaced.parameters == run.parameters);
        QCOMPARE(replaced.loss.loss_sum, run.loss.loss_sum);
        QVERIFY_THROWS_EXCEPTION(dp::Error,
                                 dp::selftest::train_lenet_resident("cpu:0", data_, 100000, 1));
    }

private:
    dp::TrainTestSets data_;
};

QTEST_GUILESS_MAIN(TestSelftestHarness)
#include "test_selftest_harness.moc"
