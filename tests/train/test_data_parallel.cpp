// The data-parallel engine against its promise: N replicas at a global batch
// train exactly like one device at that batch, up to float rounding, and
// replicas stay bit-identical after every step.
#include <QtTest>

#include <cmath>
#include <filesystem>

#include "data/dataset.h"
#include "data/epoch_sampler.h"
#include "train/replica_group.h"

namespace {

// DP_CPU_DEVICES gives 3 or 4 CPU devices on a 2-core machine.
class DeviceCountOverride {
public:
    explicit DeviceCountOverride(int count) { qputenv("DP_CPU_DEVICES", QByteArray::number(count)); }
    ~DeviceCountOverride() { qunsetenv("DP_CPU_DEVICES"); }
};

dp::TrainConfig config_on(int devices, const std::string& allreduce = "ring") {
    dp::TrainConfig config;
    config.batch_size = 64;
    config.lr = 0.2f;
    for (int i = 0; i < devices; ++i) config.devices.push_back("cpu:" + std::to_string(i));
    config.allreduce = allreduce;
    config.bucket_mb = 0.1;  // several buckets even for LeNet
    return config;
}

double max_relative_difference(const std::vector<float>& a, const std::vector<float>& b) {
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        worst = std::max(worst, std::abs(double(a[i]) - b[i]) /
                                    std::max({std::abs(double(a[i])), std::abs(double(b[i])), 1e-3}));
    return worst;
}

}  // namespace

class TestDataParallel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        if (!std::filesystem::exists(dp::default_fashion_mnist_dir()))
            QSKIP("Fashion-MNIST not found: run scripts/setup (installs dataset-fashion-mnist)");
        data_ = dp::load_mnist_format(dp::default_fashion_mnist_dir(), 64 * 20, 300);
    }

    // 20 steps in file order from the same start: 3 devices (shards 22, 22,
    // 20) end where 1 device ends. Also checks that replicas are bit-identical
    // after every step, and that the evaluation split across devices equals
    // the evaluation on one.
    void threeDevicesTrainLikeOne_data() {
        QTest::addColumn<QString>("allreduce");
        QTest::newRow("ring") << "ring";
        QTest::newRow("naive") << "naive";
    }
    void threeDevicesTrainLikeOne() {
        QFETCH(QString, allreduce);
        DeviceCountOverride three_devices(3);
        const dp::SampleShape input{1, 28, 28};
        dp::ReplicaGroup one(dp::select_devices(config_on(1).devices), config_on(1), input);
        const auto config = config_on(3, allreduce.toStdString());
        dp::ReplicaGroup three(dp::select_devices(config.devices), config, input);
        QCOMPARE(three.parameters(1), three.parameters(0));  // the broadcast at start
        QCOMPARE(three.parameters(0), one.parameters(0));    // same seed for replica 0

        dp::EpochSampler in_file_order(data_.train.count, 0, false);
        const auto order = in_file_order.order(0);
        for (int step = 0; step < 20; ++step) {
            const auto batch = order.subspan(step * 64, 64);
            dp::Backend::LossResult loss_one, loss_three;
            one.train_step(data_.train, batch, config.lr, loss_one);
            const auto timings = three.train_step(data_.train, batch, config.lr, loss_three);
            QCOMPARE(timings.size(), std::size_t(3));
            QCOMPARE(timings[0].shard + timings[1].shard + timings[2].shard, 64);
            QVERIFY(std::abs(loss_one.loss_sum - loss_three.loss_sum) <= 1e-4 * loss_one.loss_sum);
            const auto replica0 = three.parameters(0);
            QCOMPARE(three.parameters(1), replica0);
            QCOMPARE(three.parameters(2), replica0);
        }
        const double difference = max_relative_difference(one.parameters(0), three.parameters(0));
        qInfo("max relative parameter difference after 20 steps: %.2e", difference);
        QVERIFY(difference <= 1e-5);
        QCOMPARE(three.evaluate(data_.test), one.evaluate(data_.test));
    }

    // Batch 5 over 4 devices: shards 2, 2, 1, 0. The empty replica still
    // joins every all-reduce, and the result equals one device's.
    void emptyShardStillJoinsCollectives() {
        DeviceCountOverride four_devices(4);
        const dp::SampleShape input{1, 28, 28};
        auto config = config_on(4);
        config.batch_size = 5;
        dp::ReplicaGroup four(dp::select_devices(config.devices), config, input);
        auto single = config_on(1);
        single.batch_size = 5;
        dp::ReplicaGroup one(dp::select_devices(single.devices), single, input);
        const std::vector<int> batch{0, 1, 2, 3, 4};
        dp::Backend::LossResult loss_one, loss_four;
        one.train_step(data_.train, batch, config.lr, loss_one);
        const auto timings = four.train_step(data_.train, batch, config.lr, loss_four);
        QCOMPARE(timings[3].shard, 0);
        QCOMPARE(four.parameters(3), four.parameters(0));
        QVERIFY(max_relative_difference(one.parameters(0), four.parameters(0)) <= 1e-5);
    }

private:
    dp::TrainTestSets data_;
};

QTEST_APPLESS_MAIN(TestDataParallel)
#include "test_data_parallel.moc"
