// --weight-decay: SGD's weight decay as PyTorch's torch.optim.SGD has it,
// w <- w - lr (g + wd w). One step from the same seed with and without it
// differs by exactly -lr wd w0; 2 devices take the same step as 1; 0 keeps
// a run's bits; a negative value is refused as a problem of that setting.
#include <QtTest>

#include "config/config_fields.h"
#include "config/train_config.h"
#include "config/training_data.h"
#include "core/error.h"
#include "data/epoch_sampler.h"
#include "train/replica_group.h"

namespace {

dp::TrainConfig oneStep(float weightDecay, std::vector<std::string> devices)
{
    dp::TrainConfig config;
    config.model = "linear";
    config.dataset = "random";
    config.input_size = 5;
    config.samples = 64;
    config.batch_size = 64;  // one step an epoch
    config.lr = 0.5f;
    config.epochs = 1;
    config.shuffle = false;
    config.weight_decay = weightDecay;
    config.devices = std::move(devices);
    return config;
}

// The parameters after `steps` steps of `config`'s run (0: as initialized).
std::vector<float> parametersAfter(const dp::TrainConfig& config, int steps)
{
    const dp::TrainTestSets data = dp::load_training_data(config);
    dp::ReplicaGroup group(dp::select_devices(config.devices), config,
                           {data.train.channels, data.train.height, data.train.width},
                           data.train.classes);
    dp::EpochSampler sampler(data.train.count, config.seed, config.shuffle);
    for (int step = 0; step < steps; ++step) {
        dp::Backend::LossResult loss;
        group.train_step(data.train, sampler.order(step), config.lr, loss);
    }
    return group.parameters(0);
}

}  // namespace

class TestWeightDecay : public QObject {
    Q_OBJECT

private slots:
    void oneStepAddsDecayTimesTheWeights()
    {
        const std::vector<float> initial = parametersAfter(oneStep(0, {"cpu:0"}), 0);
        const std::vector<float> plain = parametersAfter(oneStep(0, {"cpu:0"}), 1);
        const float decay = 0.1f;
        const std::vector<float> decayed = parametersAfter(oneStep(decay, {"cpu:0"}), 1);
        QCOMPARE(decayed.size(), initial.size());
        int moved = 0;
        for (std::size_t i = 0; i < initial.size(); ++i) {
            const float expected = plain[i] - 0.5f * decay * initial[i];
            QVERIFY2(std::abs(decayed[i] - expected) <= 1e-6f * (1 + std::abs(expected)),
                     qPrintable(QStringLiteral("parameter %1: %2, expected %3")
                                    .arg(i).arg(decayed[i]).arg(expected)));
            moved += decayed[i] != plain[i];
        }
        QVERIFY(moved > 0);  // the setting took effect
    }

    void twoDevicesTakeOneDevicesStep()
    {
        const std::vector<float> one = parametersAfter(oneStep(0.05f, {"cpu:0"}), 3);
        const std::vector<float> two = parametersAfter(oneStep(0.05f, {"cpu:0x2"}), 3);
        QCOMPARE(two.size(), one.size());
        for (std::size_t i = 0; i < one.size(); ++i)
            QVERIFY(std::abs(two[i] - one[i]) <= 1e-6f * (1 + std::abs(one[i])));
    }

    void noDecayKeepsTheBits()
    {
        const dp::TrainConfig config = oneStep(0, {"cpu:0"});
        QCOMPARE(parametersAfter(config, 2), parametersAfter(config, 2));
        QCOMPARE(config.weight_decay, 0.f);  // the default
    }

    void negativeDecayIsItsOwnProblem()
    {
        dp::TrainConfig config = oneStep(-0.1f, {"cpu:0"});
        try {
            dp::validate(config);
            QFAIL("a negative weight decay was accepted");
        } catch (const dp::SettingError& error) {
            QCOMPARE(QString::fromStdString(error.setting()), QStringLiteral("weight_decay"));
            QCOMPARE(QString::fromUtf8(error.what()),
                     QStringLiteral("{weight_decay} must be 0 or more (got -0.1)"));
        }
        // Every rank of a cluster run must agree on it.
        config.weight_decay = 0.1f;
        QVERIFY(dp::shared_settings(config).find("weight_decay=0.1\n") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestWeightDecay)
#include "test_weight_decay.moc"
