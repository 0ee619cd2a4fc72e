// --warmup-epochs: the learning rate of step s (from 0) of W warm-up epochs of
// B batches is lr x (s + 1) / (W x B), then lr; the Trainer's run equals steps
// taken by hand at those rates, bit for bit.
#include <QtTest>

#include <algorithm>

#include "data/epoch_sampler.h"
#include "io/safetensors.h"
#include "train/replica_group.h"
#include "train/train_observer.h"
#include "train/trainer.h"
#include "config/training_data.h"

namespace {

struct Quiet : dp::TrainObserver {
    std::string failure;
    void on_failed(const std::string& message) override { failure = message; }
};

std::vector<float> weights(const std::filesystem::path& file) {
    const auto checkpoint = dp::read_safetensors(file);
    std::vector<float> all;
    for (const auto& tensor : checkpoint.tensors) {
        std::vector<float> values(tensor.element_count());
        dp::copy_elements(tensor, values);
        all.insert(all.end(), values.begin(), values.end());
    }
    return all;
}

}  // namespace

class TestWarmup : public QObject {
    Q_OBJECT

private slots:
    void warmupRaisesTheLearningRateStepByStep() {
        QTemporaryDir dir;
        dp::TrainConfig config;
        config.model = "linear";
        config.dataset = "random";
        config.input_size = 5;
        config.samples = 100;
        config.batch_size = 30;  // 4 batches an epoch
        config.lr = 0.5f;
        config.epochs = 3;
        config.warmup_epochs = 1.5;  // 6 steps of warm-up
        config.shuffle = false;
        config.devices = {"cpu:0"};
        config.save_path = dir.filePath("trainer.safetensors").toStdString();
        Quiet observer;
        QCOMPARE(dp::Trainer(config).run(observer), dp::RunOutcome::finished);
        QCOMPARE(QString::fromStdString(observer.failure), QString());

        const dp::TrainTestSets data = dp::load_training_data(config);
        dp::ReplicaGroup by_hand(dp::select_devices(config.devices), config,
                                 {data.train.channels, data.train.height, data.train.width},
                                 data.train.classes);
        dp::EpochSampler sampler(data.train.count, config.seed, config.shuffle);
        const int batches = 4, warmup_steps = 6;
        int step = 0;
        for (int epoch = 0; epoch < config.epochs; ++epoch) {
            const auto order = sampler.order(epoch);
            for (int batch = 0; batch < batches; ++batch, ++step) {
                const int first = batch * config.batch_size;
                const int rows = std::min(config.batch_size, data.train.count - first);
                const float lr = float(config.lr * std::min(1.0, double(step + 1) / warmup_steps));
                dp::Backend::LossResult loss;
                by_hand.train_step(data.train, order.subspan(first, rows), lr, loss);
            }
        }
        by_hand.save(dir.filePath("by_hand.safetensors").toStdString(), config.model);
        QCOMPARE(weights(dir.filePath("trainer.safetensors").toStdString()),
                 weights(dir.filePath("by_hand.safetensors").toStdString()));

        // Without warm-up the same run ends elsewhere: the setting took effect.
        config.warmup_epochs = 0;
        config.save_path = dir.filePath("plain.safetensors").toStdString();
        QCOMPARE(dp::Trainer(config).run(observer), dp::RunOutcome::finished);
        QVERIFY(weights(dir.filePath("plain.safetensors").toStdString()) !=
                weights(dir.filePath("trainer.safetensors").toStdString()));
    }
};

QTEST_GUILESS_MAIN(TestWarmup)
#include "test_warmup.moc"
