// The test loss: the evaluation pass that counts the correct classes also
// sums the loss, and its mean is PyTorch's CrossEntropyLoss(reduction='mean')
// over the set, the same on N devices as on one.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <random>

#include "../golden/golden_tensors.h"
#include "data/dataset.h"
#include "devices/device.h"
#include "io/safetensors.h"
#include "record/run_metrics.h"
#include "train/replica.h"
#include "train/replica_group.h"

namespace {

constexpr int kGoldenBatch = 16;
const dp::SampleShape kInput{1, 28, 28};

// DP_CPU_DEVICES gives 3 CPU devices on a 2-core machine.
class DeviceCountOverride {
public:
    explicit DeviceCountOverride(int count) { qputenv("DP_CPU_DEVICES", QByteArray::number(count)); }
    ~DeviceCountOverride() { qunsetenv("DP_CPU_DEVICES"); }
};

std::vector<float> golden_tensor(const dp::SafetensorsFile& golden, const std::string& name) {
    const auto* entry = golden.find(name);
    if (!entry) throw std::runtime_error("golden file lacks " + name);
    return dp::golden::floats_of(*entry);
}

// The golden batch as a dataset of 16 samples.
dp::Dataset golden_set(const dp::SafetensorsFile& golden) {
    dp::Dataset set;
    set.count = kGoldenBatch;
    set.height = kInput.height;
    set.width = kInput.width;
    set.images = golden_tensor(golden, "input");
    for (float label : golden_tensor(golden, "labels")) set.labels.push_back(std::int32_t(label));
    return set;
}

// Mean cross-entropy of `logits` (rows x classes) against `labels` by the
// definition, in double: mean over rows of logsumexp(row) - row[label].
double naive_cross_entropy(const std::vector<float>& logits, const std::vector<std::int32_t>& labels,
                           int classes) {
    double sum = 0;
    for (std::size_t row = 0; row < labels.size(); ++row) {
        const float* scores = logits.data() + row * std::size_t(classes);
        const double top = *std::max_element(scores, scores + classes);
        double exp_sum = 0;
        for (int c = 0; c < classes; ++c) exp_sum += std::exp(double(scores[c]) - top);
        sum += top + std::log(exp_sum) - double(scores[labels[row]]);
    }
    return sum / double(labels.size());
}

// `count` random images in [0, 1] with random labels of 10 classes.
dp::Dataset random_set(int count) {
    dp::Dataset set;
    set.count = count;
    set.height = kInput.height;
    set.width = kInput.width;
    std::mt19937 random(7);
    std::uniform_real_distribution<float> pixel(0.f, 1.f);
    std::uniform_int_distribution<std::int32_t> label(0, 9);
    set.images.resize(std::size_t(count) * set.sample_size());
    for (float& value : set.images) value = pixel(random);
    for (int i = 0; i < count; ++i) set.labels.push_back(label(random));
    return set;
}

dp::TrainConfig lenet_on(int devices) {
    dp::TrainConfig config;
    config.model = "lenet";
    config.batch_size = 64;
    for (int i = 0; i < devices; ++i) config.devices.push_back("cpu:" + std::to_string(i));
    return config;
}

}  // namespace

class TestTestLoss : public QObject {
    Q_OBJECT

private slots:
    // PyTorch's LeNet weights on its golden batch: the evaluation's mean loss
    // is the golden CrossEntropyLoss (LeNet has no dropout or BatchNorm, so
    // evaluating equals the golden training-mode forward), and a naive loop
    // over the golden logits gives it too. Rows of 6 make three forwards
    // (6, 6, 4), so the sum over chunks is checked as well.
    void evaluationLossIsPyTorchsCrossEntropy() {
        const dp::SafetensorsFile golden =
            dp::read_safetensors(std::string(DP_GOLDEN_DIR) + "/lenet.safetensors");
        const dp::Dataset set = golden_set(golden);
        dp::Replica replica(dp::select_devices({"cpu:0"})[0], "lenet", kInput, 10, /*max_rows=*/6,
                            /*seed=*/0);
        dp::ParameterStore& store = replica.model().parameters();
        for (const auto& info : store.infos()) {
            const auto values = golden_tensor(golden, "init." + info.name);
            QCOMPARE(values.size(), info.size);
            replica.backend().upload(values.data(), store.values() + info.offset, info.size);
        }
        const double golden_loss = golden_tensor(golden, "loss")[0];
        const auto logits = golden_tensor(golden, "logits");
        QVERIFY(std::abs(naive_cross_entropy(logits, set.labels, 10) - golden_loss) <= 1e-6 * golden_loss);

        const dp::Backend::LossResult result = replica.evaluate(set, 0, set.count);
        const double mean = result.loss_sum / set.count;
        QVERIFY2(std::abs(mean - golden_loss) <= 1e-5 * golden_loss,
                 qPrintable(QString("test loss %1, PyTorch's %2").arg(mean).arg(golden_loss)));
        std::int64_t correct = 0;
        for (int row = 0; row < set.count; ++row) {
            const float* scores = logits.data() + std::size_t(row) * 10;
            correct += std::max_element(scores, scores + 10) - scores == set.labels[std::size_t(row)];
        }
        QCOMPARE(result.correct, correct);
    }

    // The same model evaluated on 1 and on 3 devices (an uneven split of 100
    // samples): the same accuracy, the same mean loss to float rounding, and
    // a mean, not a sum (near ln 10 for an untrained 10-class model).
    void testLossOnThreeDevicesIsOneDevices() {
        const DeviceCountOverride three_cpus(3);
        const dp::Dataset set = random_set(100);
        const dp::TrainConfig single = lenet_on(1), triple = lenet_on(3);
        dp::ReplicaGroup one(dp::select_devices(single.devices), single, kInput, 10);
        dp::ReplicaGroup three(dp::select_devices(triple.devices), triple, kInput, 10);
        QCOMPARE(three.parameters(0), one.parameters(0));
        const dp::Evaluation on_one = one.evaluate(set), on_three = three.evaluate(set);
        QCOMPARE(on_three.accuracy, on_one.accuracy);
        QVERIFY2(std::abs(on_three.loss - on_one.loss) <= 1e-6 * on_one.loss,
                 qPrintable(QString("%1 on one device, %2 on three").arg(on_one.loss).arg(on_three.loss)));
        QVERIFY2(on_one.loss > 1.5 && on_one.loss < 3.5, qPrintable(QString::number(on_one.loss)));
    }

    // Issue 42: each device thread's CPU clock, which an epoch's device_cpu
    // shares come from, advances with the work its thread does.
    void deviceThreadsCountTheirCpuTime() {
        const DeviceCountOverride three_cpus(3);
        const dp::TrainConfig triple = lenet_on(3);
        dp::ReplicaGroup three(dp::select_devices(triple.devices), triple, kInput, 10);
        const std::vector<double> before = three.device_cpu_seconds();
        QCOMPARE(before.size(), std::size_t(3));
        three.evaluate(random_set(300));
        const std::vector<double> after = three.device_cpu_seconds();
        for (std::size_t d = 0; d < after.size(); ++d)
            QVERIFY2(after[d] > before[d], qPrintable(QString("device %1: %2 s, then %3 s").arg(d).arg(before[d]).arg(after[d])));
    }

    // dp-train's epoch line quotes the test loss when there is one.
    void epochLineQuotesTheTestLoss() {
        dp::EpochMetrics epoch{.epoch = 3, .train_loss = 0.5214, .train_acc = 0.807,
                               .test_acc = 0.812, .seconds = 4.4};
        QCOMPARE(dp::epoch_line(epoch, 10),
                 std::string("epoch 3/10: train loss 0.5214, train acc 0.807, test acc 0.812, 4.4 sec"));
        epoch.test_loss = 0.53021;
        QCOMPARE(dp::epoch_line(epoch, 10),
                 std::string("epoch 3/10: train loss 0.5214, train acc 0.807, test loss 0.5302, "
                             "test acc 0.812, 4.4 sec"));
    }
};

QTEST_APPLESS_MAIN(TestTestLoss)
#include "test_test_loss.moc"
