// What the empty accuracy chart says (issue 31): with no runs, to press Start,
// naming the settings' model and data and how long the run takes here, from
// a probe of those settings (TrainingTimeProbe) rather than a guess; with
// runs but none checked, to check them. And the estimate's arithmetic.
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "chart_board.h"
#include "empty_chart_guide.h"
#include "empty_chart_text.h"
#include "epoch_metric_chart.h"
#include "run_config_panel.h"
#include "runs_table_model.h"
#include "shown_board.h"
#include "training_time_probe.h"
#include "vocabulary.h"

#include "config/train_config.h"
#include "record/run_record.h"

class TestEmptyCharts : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void estimateScalesWithImagesAndEpochs();
    void durationsReadAsEstimates();
    void emptyAccuracyChartSaysWhatToDo();

private:
    QTemporaryDir scratch_;
};

void TestEmptyCharts::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, scratch_.filePath("settings"));
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, scratch_.filePath("settings"));
    QSettings().clear();
}

void TestEmptyCharts::estimateScalesWithImagesAndEpochs()
{
    const ProbeTiming timing{0.001, 0.0005};  // per training image, per test image
    const ImagesPerEpoch fashion{60000, 10000};
    QCOMPARE(estimatedRunSeconds(timing, fashion, 10), 10 * (60.0 + 5.0));
    QCOMPARE(estimatedRunSeconds(timing, fashion, 20), 2 * estimatedRunSeconds(timing, fashion, 10));
    // Twice the training images: twice the training part, the same evaluation.
    QCOMPARE(estimatedRunSeconds(timing, {120000, 10000}, 10), 10 * (120.0 + 5.0));
    QCOMPARE(estimatedRunSeconds(timing, fashion, 0), 0.0);

    dp::TrainConfig config;  // LeNet on Fashion-MNIST
    QCOMPARE(imagesPerEpoch(config).train, std::int64_t(60000));
    QCOMPARE(imagesPerEpoch(config).test, std::int64_t(10000));
    config.limit_train = 1000;
    config.limit_test = 200;
    QCOMPARE(imagesPerEpoch(config).train, std::int64_t(1000));
    QCOMPARE(imagesPerEpoch(config).test, std::int64_t(200));
    config.dataset = "random";
    config.samples = 300;
    QCOMPARE(imagesPerEpoch(config).train, std::int64_t(300));
    QCOMPARE(imagesPerEpoch(config).test, std::int64_t(300));
    config.dataset = "mnist-format";  // a folder of unknown size
    config.limit_train = 0;
    QCOMPARE(imagesPerEpoch(config).train, std::int64_t(0));

    // Epochs, the seed and the learning rate do not change a step's time;
    // the model, batch and devices do.
    dp::TrainConfig other;
    other.epochs = 3;
    other.seed = 9;
    other.lr = 0.05f;
    QCOMPARE(TrainingTimeProbe::settingsKey(other), TrainingTimeProbe::settingsKey(dp::TrainConfig{}));
    other.batch_size = 128;
    QVERIFY(TrainingTimeProbe::settingsKey(other) != TrainingTimeProbe::settingsKey(dp::TrainConfig{}));
    other = {};
    other.devices = {"cpu:0", "cpu:1"};
    QVERIFY(TrainingTimeProbe::settingsKey(other) != TrainingTimeProbe::settingsKey(dp::TrainConfig{}));
}

void TestEmptyCharts::durationsReadAsEstimates()
{
    QCOMPARE(vocabulary::aboutDuration(20), QStringLiteral("under a minute"));
    QCOMPARE(vocabulary::aboutDuration(70), QStringLiteral("about 1 minute"));
    QCOMPARE(vocabulary::aboutDuration(650), QStringLiteral("about 11 minutes"));
    QCOMPARE(vocabulary::aboutDuration(3 * 3600 + 100), QStringLiteral("about 3 hours"));
    QCOMPARE(EmptyChartText::startTraining(QStringLiteral("LeNet"), QStringLiteral("Fashion-MNIST"), 70),
             QStringLiteral("Press Start to train LeNet on Fashion-MNIST: about 1 minute on this machine"));
    QCOMPARE(EmptyChartText::startTraining(QStringLiteral("LeNet"), QStringLiteral("Fashion-MNIST"), std::nullopt),
             QStringLiteral("Press Start to train LeNet on Fashion-MNIST"));
}

void TestEmptyCharts::emptyAccuracyChartSaysWhatToDo()
{
    RunsTableModel runs;
    RunConfigPanel settings;
    ShownBoard shown;
    auto* accuracy = shown.chart<EpochMetricChart>("accuracyChart");
    QVERIFY(accuracy);
    EmptyChartGuide guide(&runs, &settings, accuracy);
    auto* text = accuracy->findChild<QLabel*>(QStringLiteral("emptyChartText"));
    QVERIFY(text);

    // The settings' model and data, by their titles.
    dp::TrainConfig config = settings.config();
    config.model = "lenet";
    config.dataset = "fashion-mnist";
    settings.setConfig(config);
    QVERIFY2(guide.message().startsWith(QStringLiteral("Press Start to train LeNet on Fashion-MNIST")),
             qPrintable(guide.message()));
    QVERIFY(text->isVisible());
    QVERIFY(accuracy->rect().contains(text->geometry()));

    // A run small enough to probe here: the synthetic set on one CPU device.
    config.model = "linear";
    config.dataset = "random";
    config.samples = 512;
    config.batch_size = 64;
    config.epochs = 2;
    config.devices = {"cpu:0"};
    settings.setConfig(config);
    config = settings.config();
    QVERIFY2(guide.message().startsWith(QStringLiteral("Press Start to train Linear on synthetic data")),
             qPrintable(guide.message()));
    QTRY_VERIFY_WITH_TIMEOUT(guide.probe().isKnown(config), 30000);
    const std::optional<ProbeTiming> timing = guide.probe().timing(config);
    QVERIFY2(timing, "the probe measured nothing");
    QVERIFY(timing->trainSecondsPerImage > 0);
    const std::optional<double> twoEpochs = guide.probe().estimatedSeconds(config);
    QVERIFY(twoEpochs && *twoEpochs > 0);
    QCOMPARE(guide.message(), EmptyChartText::startTraining(QStringLiteral("Linear"),
                                                            QStringLiteral("synthetic data"), twoEpochs));

    // The next launch knows it without a probe of its own.
    {
        TrainingTimeProbe nextLaunch;
        QSignalSpy told(&nextLaunch, &TrainingTimeProbe::measured);
        nextLaunch.measure(config);
        QVERIFY(!nextLaunch.isRunning());
        QCOMPARE(told.count(), 1);
        QVERIFY(nextLaunch.timing(config));
        QCOMPARE(nextLaunch.timing(config)->trainSecondsPerImage, timing->trainSecondsPerImage);
        QCOMPARE(nextLaunch.timing(config)->testSecondsPerImage, timing->testSecondsPerImage);
    }

    // More epochs: the same measurement, scaled; no new probe.
    config.epochs = 8;
    settings.setConfig(config);
    QVERIFY(!guide.probe().isRunning());
    const std::optional<double> eightEpochs = guide.probe().estimatedSeconds(settings.config());
    QVERIFY(eightEpochs);
    QCOMPARE(*eightEpochs, 4 * *twoEpochs);
    QCOMPARE(guide.message(), EmptyChartText::startTraining(QStringLiteral("Linear"),
                                                            QStringLiteral("synthetic data"), eightEpochs));

    // Runs, none checked: check them. One checked: nothing over its lines.
    dp::RunRecord past = dp::start_run_record(config, "dp-train");
    past.id = "past";
    past.status = dp::RunStatus::finished;
    runs.upsert(past, true);
    QCOMPARE(guide.message(), QStringLiteral("Check runs below to draw them"));
    QVERIFY(text->isVisible());
    runs.setChecked(0, true);
    QVERIFY(guide.message().isEmpty());
    QVERIFY(!text->isVisible());
    runs.remove("past");
    QVERIFY(guide.message().startsWith(QStringLiteral("Press Start")));
}

QTEST_MAIN(TestEmptyCharts)
#include "test_empty_charts.moc"
