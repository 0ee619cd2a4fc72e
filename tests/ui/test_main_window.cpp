// Drives the workbench window like a user would, on the offscreen platform,
// with the real engine on the real Fashion-MNIST files.
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QListWidget>
#include <QLineSeries>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QTimer>
#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <numeric>

#include "accuracy_chart.h"
#include "batch_split_view.h"
#include "data/dataset.h"
#include "devices/device.h"
#include "main_window.h"
#include "run_config_panel.h"

namespace {

constexpr int kFirstEpochTimeoutMs = 120'000;
// Stop must land within one batch; this leaves room for a loaded machine.
constexpr int kStopTimeoutMs = 5'000;

// Far more epochs than the test waits for, so Stop always lands mid-run.
dp::TrainConfig tinyRun()
{
    dp::TrainConfig config;
    config.limit_train = 512;
    config.limit_test = 256;
    config.batch_size = 64;
    config.epochs = 50;
    config.lr = 0.2f;
    return config;
}

bool fashionMnistAvailable()
{
    return std::filesystem::is_directory(dp::default_fashion_mnist_dir());
}

// The widgets a user looks at and clicks, found by object name.
struct WindowParts {
    explicit WindowParts(const MainWindow& window)
        : startButton(window.findChild<QPushButton*>(QStringLiteral("startButton"))),
          stopButton(window.findChild<QPushButton*>(QStringLiteral("stopButton"))),
          configPanel(window.findChild<RunConfigPanel*>(QStringLiteral("runConfigPanel"))),
          accuracyChart(window.findChild<AccuracyChart*>(QStringLiteral("accuracyChart"))),
          batchProgressBar(window.findChild<QProgressBar*>(QStringLiteral("batchProgressBar"))),
          statusLabel(window.findChild<QLabel*>(QStringLiteral("statusLabel"))),
          logView(window.findChild<QPlainTextEdit*>(QStringLiteral("logView")))
    {
    }

    bool allFound() const
    {
        return startButton && stopButton && configPanel && accuracyChart && batchProgressBar
            && statusLabel && logView;
    }

    QPushButton* startButton;
    QPushButton* stopButton;
    RunConfigPanel* configPanel;
    AccuracyChart* accuracyChart;
    QProgressBar* batchProgressBar;
    QLabel* statusLabel;
    QPlainTextEdit* logView;
};

// Records the longest stretch the GUI thread went without serving a timer.
class EventLoopGapMeter {
public:
    EventLoopGapMeter()
    {
        QObject::connect(&timer_, &QTimer::timeout, [this] {
            longestGapMs_ = std::max(longestGapMs_, sinceLastTick_.restart());
        });
        sinceLastTick_.start();
        timer_.start(10);
    }

    qint64 longestGapMs() const { return longestGapMs_; }

private:
    QTimer timer_;
    QElapsedTimer sinceLastTick_;
    qint64 longestGapMs_ = 0;
};

}  // namespace

class TestMainWindow : public QObject {
    Q_OBJECT

private slots:
    void stopEndsTheRunAndKeepsItsPoints();
    void invalidSettingsShowAnErrorAndDisableStart();
    void missingDataDirectoryIsReportedInTheWindow();
    void closingMidRunStopsTheRun();
    void deviceListShowsEveryDevice();
    void uncheckingAllDevicesShowsAnErrorAndDisablesStart();
    void configRoundTripsDataParallelSettings();
};

void TestMainWindow::stopEndsTheRunAndKeepsItsPoints()
{
    if (!fashionMnistAvailable())
        QSKIP("Fashion-MNIST not found: install dataset-fashion-mnist or set DP_DATA_DIR");
    MainWindow window;
    const WindowParts parts(window);
    QVERIFY(parts.allFound());
    window.setRunConfig(tinyRun());
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(parts.startButton->isEnabled());
    QVERIFY(!parts.stopButton->isEnabled());

    QTest::mouseClick(parts.startButton, Qt::LeftButton);
    QVERIFY(!parts.startButton->isEnabled());
    QVERIFY(parts.stopButton->isEnabled());
    QVERIFY(!parts.configPanel->isEnabled());
    const QLineSeries* series = parts.accuracyChart->currentRunSeries();
    QVERIFY(series);

    const EventLoopGapMeter gapMeter;
    QTRY_VERIFY_WITH_TIMEOUT(series->count() >= 1, kFirstEpochTimeoutMs);
    QVERIFY(parts.statusLabel->text().startsWith(QStringLiteral("epoch ")));
    QVERIFY2(gapMeter.longestGapMs() < 1000,
             qPrintable(QStringLiteral("GUI thread blocked for %1 ms during training")
                            .arg(gapMeter.longestGapMs())));

    // The batch split view shows a step whose shards add up to the batch.
    auto* splitView = window.findChild<BatchSplitView*>(QStringLiteral("batchSplitView"));
    QVERIFY(splitView);
    QTRY_VERIFY_WITH_TIMEOUT(!splitView->lastShards().empty(), kStopTimeoutMs);
    const std::vector<int> shards = splitView->lastShards();
    QCOMPARE(shards.size(), dp::available_devices().size());
    QCOMPARE(std::accumulate(shards.begin(), shards.end(), 0), tinyRun().batch_size);

    QTest::mouseClick(parts.stopButton, Qt::LeftButton);
    QVERIFY(!parts.stopButton->isEnabled());
    QTRY_VERIFY_WITH_TIMEOUT(parts.startButton->isEnabled(), kStopTimeoutMs);

    const int plotted = series->count();
    QVERIFY(plotted >= 1);
    QVERIFY(plotted < tinyRun().epochs);
    QVERIFY(parts.configPanel->isEnabled());
    QVERIFY2(parts.statusLabel->text().startsWith(QStringLiteral("Stopped")),
             qPrintable(parts.statusLabel->text()));
    // The engine's d2l summary line closes the log.
    QVERIFY2(parts.logView->toPlainText().contains(QStringLiteral("test acc")),
             qPrintable(parts.logView->toPlainText()));
    // The points stay once the run has ended.
    QTest::qWait(200);
    QCOMPARE(series->count(), plotted);
}

void TestMainWindow::invalidSettingsShowAnErrorAndDisableStart()
{
    MainWindow window;
    const WindowParts parts(window);
    QVERIFY(parts.allFound());
    auto* validationLabel = window.findChild<QLabel*>(QStringLiteral("validationLabel"));
    auto* learningRateSpin = window.findChild<QDoubleSpinBox*>(QStringLiteral("learningRateSpin"));
    QVERIFY(validationLabel && learningRateSpin);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(parts.startButton->isEnabled());
    QVERIFY(!validationLabel->isVisible());

    learningRateSpin->setValue(0.0);
    QVERIFY(validationLabel->isVisible());
    QVERIFY(!validationLabel->text().isEmpty());
    QVERIFY(!parts.startButton->isEnabled());

    // An unknown model set programmatically is refused the same way.
    learningRateSpin->setValue(0.1);
    QVERIFY(parts.startButton->isEnabled());
    dp::TrainConfig unknownModel;
    unknownModel.model = "no-such-model";
    window.setRunConfig(unknownModel);
    QVERIFY(validationLabel->isVisible());
    QVERIFY(!parts.startButton->isEnabled());

    window.setRunConfig(dp::TrainConfig{});
    QVERIFY(!validationLabel->isVisible());
    QVERIFY(parts.startButton->isEnabled());
}

void TestMainWindow::missingDataDirectoryIsReportedInTheWindow()
{
    const QString missingDir = QDir::temp().filePath(QStringLiteral("dp-workbench-no-such-dir"));
    QVERIFY(!QFileInfo::exists(missingDir));
    MainWindow window;
    const WindowParts parts(window);
    QVERIFY(parts.allFound());
    dp::TrainConfig config = tinyRun();
    config.data_dir = missingDir.toStdString();
    window.setRunConfig(config);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));

    QTest::mouseClick(parts.startButton, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(parts.startButton->isEnabled(), kStopTimeoutMs);
    QVERIFY2(parts.statusLabel->text().startsWith(QStringLiteral("Error")),
             qPrintable(parts.statusLabel->text()));
    QVERIFY2(parts.statusLabel->text().contains(missingDir), qPrintable(parts.statusLabel->text()));
    QVERIFY(parts.logView->toPlainText().contains(missingDir));
    QVERIFY(!parts.stopButton->isEnabled());
    QCOMPARE(parts.accuracyChart->currentRunSeries()->count(), 0);
}

void TestMainWindow::closingMidRunStopsTheRun()
{
    if (!fashionMnistAvailable())
        QSKIP("Fashion-MNIST not found: install dataset-fashion-mnist or set DP_DATA_DIR");
    auto window = std::make_unique<MainWindow>();
    const WindowParts parts(*window);
    QVERIFY(parts.allFound());
    window->setRunConfig(tinyRun());
    window->show();
    QVERIFY(QTest::qWaitForWindowExposed(window.get()));
    QTest::mouseClick(parts.startButton, Qt::LeftButton);
    // Wait for batches to flow so the close lands inside the training loop.
    QTRY_VERIFY_WITH_TIMEOUT(parts.batchProgressBar->value() >= 1, kFirstEpochTimeoutMs);

    QElapsedTimer closing;
    closing.start();
    window->close();
    window.reset();
    QVERIFY2(closing.elapsed() < kStopTimeoutMs,
             qPrintable(QStringLiteral("closing took %1 ms").arg(closing.elapsed())));
}

void TestMainWindow::deviceListShowsEveryDevice()
{
    MainWindow window;
    auto* deviceList = window.findChild<QListWidget*>(QStringLiteral("deviceList"));
    QVERIFY(deviceList);
    const std::vector<dp::DeviceInfo> devices = dp::available_devices();
    QCOMPARE(deviceList->count(), int(devices.size()));
    for (int row = 0; row < deviceList->count(); ++row) {
        QVERIFY(deviceList->item(row)->text().startsWith(QString::fromStdString(devices[row].id)));
        QCOMPARE(deviceList->item(row)->checkState(), Qt::Checked);
    }
}

void TestMainWindow::uncheckingAllDevicesShowsAnErrorAndDisablesStart()
{
    MainWindow window;
    const WindowParts parts(window);
    QVERIFY(parts.allFound());
    auto* deviceList = window.findChild<QListWidget*>(QStringLiteral("deviceList"));
    auto* validationLabel = window.findChild<QLabel*>(QStringLiteral("validationLabel"));
    QVERIFY(deviceList && validationLabel);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(parts.startButton->isEnabled());

    for (int row = 0; row < deviceList->count(); ++row)
        deviceList->item(row)->setCheckState(Qt::Unchecked);
    QVERIFY(validationLabel->isVisible());
    QVERIFY2(validationLabel->text().contains(QStringLiteral("at least one device")),
             qPrintable(validationLabel->text()));
    QVERIFY(!parts.startButton->isEnabled());

    deviceList->item(0)->setCheckState(Qt::Checked);
    QVERIFY(!validationLabel->isVisible());
    QVERIFY(parts.startButton->isEnabled());
}

void TestMainWindow::configRoundTripsDataParallelSettings()
{
    MainWindow window;
    const auto* panel = window.findChild<RunConfigPanel*>(QStringLiteral("runConfigPanel"));
    auto* allreduceCombo = window.findChild<QComboBox*>(QStringLiteral("allreduceCombo"));
    auto* syncBnCheck = window.findChild<QCheckBox*>(QStringLiteral("syncBnCheck"));
    QVERIFY(panel && allreduceCombo && syncBnCheck);

    std::vector<std::string> allIds;
    for (const dp::DeviceInfo& device : dp::available_devices())
        allIds.push_back(device.id);
    // All checked by default, listed explicitly.
    QCOMPARE(panel->config().devices, allIds);
    QCOMPARE(panel->config().allreduce, std::string("ring"));
    QVERIFY(!panel->config().sync_bn);

    dp::TrainConfig config;
    config.devices = {allIds.back()};
    config.allreduce = "naive";
    config.sync_bn = true;
    window.setRunConfig(config);
    QCOMPARE(panel->config().devices, config.devices);
    QCOMPARE(panel->config().allreduce, std::string("naive"));
    QVERIFY(panel->config().sync_bn);
    QCOMPARE(allreduceCombo->currentText(), QStringLiteral("naive"));
    QVERIFY(syncBnCheck->isChecked());

    // No devices in a config means the whole machine.
    window.setRunConfig(dp::TrainConfig{});
    QCOMPARE(panel->config().devices, allIds);
    QCOMPARE(panel->config().allreduce, std::string("ring"));
    QVERIFY(!panel->config().sync_bn);
}

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
