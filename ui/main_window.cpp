#include "main_window.h"

#include <algorithm>
#include <cmath>

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFontDatabase>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QKeySequence>
#include <QLabel>
#include <QListView>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStyle>
#include <QTabWidget>
#include <QVBoxLayout>

#include "batch_split_view.h"
#include "cluster_command_dialog.h"
#include "core/error.h"
#include "engine_message.h"
#include "chart_board.h"
#include "epoch_metric_chart.h"
#include "loss_chart.h"
#include "prediction_strip.h"
#include "run_config_panel.h"
#include "run_export.h"
#include "run_history.h"
#include "run_manager.h"
#include "run_record_json.h"
#include "run_settings.h"
#include "runs_panel.h"
#include "runs_table_model.h"
#include "speedup_chart.h"
#include "train/scaling_comparison.h"
#include "training_worker.h"
#include "widget_image_export.h"

namespace {

constexpr int kMaxLogLines = 10000;
// Presenter mode: text a class can read from the back of the room.
constexpr double kPresenterFontScale = 1.6;

const QString kScaleKey = QStringLiteral("compare/scale_batch_and_lr");
const QString kSecondsAxisKey = QStringLiteral("view/seconds_axis");
const QString kSmoothLossKey = QStringLiteral("view/smooth_loss");
const QString kLogLossKey = QStringLiteral("view/log_loss");

QString formatSeconds(double seconds)
{
    // Tiny runs take a fraction of a second per epoch; keep two digits there.
    return QString::number(seconds, 'f', seconds < 1.0 ? 2 : 1);
}

// d2l's text_labels for Fashion-MNIST; digits for other MNIST-format sets.
QStringList classNames(const dp::TrainConfig& config)
{
    if (config.dataset == "fashion-mnist")
        return {MainWindow::tr("t-shirt"), MainWindow::tr("trouser"), MainWindow::tr("pullover"),
                MainWindow::tr("dress"),   MainWindow::tr("coat"),    MainWindow::tr("sandal"),
                MainWindow::tr("shirt"),   MainWindow::tr("sneaker"), MainWindow::tr("bag"),
                MainWindow::tr("ankle boot")};
    return {};
}

// A checkable button beside the charts that mirrors a View menu action.
QPushButton* buttonFor(QAction* action, const QString& text, const QString& objectName)
{
    auto* button = new QPushButton(text);
    button->setObjectName(objectName);
    button->setCheckable(true);
    button->setToolTip(action->toolTip());
    QObject::connect(button, &QPushButton::toggled, action, &QAction::setChecked);
    QObject::connect(action, &QAction::toggled, button, &QPushButton::setChecked);
    return button;
}

bool writeFile(const QString& path, const QByteArray& contents)
{
    QSaveFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(contents) == contents.size()
        && file.commit();
}

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      runsModel_(new RunsTableModel(this)),
      configPanel_(new RunConfigPanel),
      configScroll_(new QScrollArea),
      charts_(new ChartBoard),
      batchSplitView_(new BatchSplitView),
      predictionStrip_(new PredictionStrip),
      viewTabs_(new QTabWidget),
      bottomTabs_(new QTabWidget),
      runsPanel_(new RunsPanel(runsModel_)),
      startButton_(new QPushButton(style()->standardIcon(QStyle::SP_MediaPlay), tr("Start"))),
      compareButton_(new QPushButton(tr("Compare 1 vs N"))),
      stopButton_(new QPushButton(style()->standardIcon(QStyle::SP_MediaStop), tr("Stop"))),
      batchProgressBar_(new QProgressBar),
      statusLabel_(new QLabel),
      logView_(new QPlainTextEdit)
{
    setWindowTitle(tr("DP Workbench"));
    try {
        history_ = std::make_unique<RunHistory>();
    } catch (const dp::Error& error) {
        // The workbench still trains; runs are just not kept.
        history_.reset();
        appendLog(tr("history unavailable: %1").arg(QString::fromUtf8(error.what())));
    }
    runs_ = std::make_unique<RunManager>(history_.get());

    configPanel_->setObjectName(QStringLiteral("runConfigPanel"));
    viewTabs_->setObjectName(QStringLiteral("viewTabs"));
    bottomTabs_->setObjectName(QStringLiteral("bottomTabs"));
    runsPanel_->setObjectName(QStringLiteral("runsPanel"));
    startButton_->setObjectName(QStringLiteral("startButton"));
    compareButton_->setObjectName(QStringLiteral("compareButton"));
    stopButton_->setObjectName(QStringLiteral("stopButton"));
    batchProgressBar_->setObjectName(QStringLiteral("batchProgressBar"));
    statusLabel_->setObjectName(QStringLiteral("statusLabel"));
    logView_->setObjectName(QStringLiteral("logView"));

    startButton_->setDefault(true);
    startButton_->setToolTip(tr("Train with these settings (Ctrl+R); during a run, queue them next"));
    compareButton_->setToolTip(tr("Queue these settings on 1 device, then on all the checked devices, "
                                  "and compare their speed in the runs table"));
    stopButton_->setToolTip(tr("Stop the run after its current batch, keeping its finished "
                               "epochs, and drop the queued runs"));
    showIdleProgress(tr("no run yet"));
    statusLabel_->setWordWrap(true);
    statusLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    logView_->setReadOnly(true);
    logView_->setMaximumBlockCount(kMaxLogLines);
    logView_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    logView_->setPlaceholderText(tr("Engine log"));

    configScroll_->setWidget(configPanel_);
    configScroll_->setWidgetResizable(true);
    configScroll_->setFrameShape(QFrame::NoFrame);
    configScroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    configScroll_->setMinimumWidth(configPanel_->sizeHint().width()
                                   + style()->pixelMetric(QStyle::PM_ScrollBarExtent) + 4);

    // Charts: the run's progress on the left, how it scales on the right.
    buildMenus();
    auto* chartsPage = new QWidget;
    auto* chartsLayout = new QVBoxLayout(chartsPage);
    chartsLayout->setContentsMargins(0, 4, 0, 0);
    chartsLayout->setSpacing(2);
    chartsLayout->addWidget(chartSwitches_);
    chartsLayout->addWidget(charts_, 1);

    auto* classroomPage = new QWidget;
    auto* classroomLayout = new QVBoxLayout(classroomPage);
    auto* splitCaption = new QLabel(
        tr("<b>One training step.</b> The global batch is split across the devices (top bar); each "
           "device computes its shard, then all wait for the gradients' all-reduce. Bars show "
           "where each device spent the step: when all-reduce wait dominates, the model is too "
           "small to gain from more devices."));
    splitCaption->setWordWrap(true);
    auto* predictionCaption = new QLabel(
        tr("<b>Sample predictions.</b> The first test images after the latest epoch, with the "
           "model's answer: green if right, red with the true label below if wrong."));
    predictionCaption->setWordWrap(true);
    classroomLayout->addWidget(splitCaption);
    classroomLayout->addWidget(batchSplitView_, 1);
    classroomLayout->addSpacing(12);
    classroomLayout->addWidget(predictionCaption);
    classroomLayout->addWidget(predictionStrip_, 2);

    viewTabs_->addTab(chartsPage, tr("Charts"));
    viewTabs_->addTab(classroomPage, tr("Classroom"));

    auto* controlsRow = new QHBoxLayout;
    controlsRow->addWidget(startButton_);
    controlsRow->addWidget(compareButton_);
    controlsRow->addWidget(stopButton_);
    controlsRow->addWidget(batchProgressBar_, 1);

    auto* viewColumn = new QWidget;
    auto* viewLayout = new QVBoxLayout(viewColumn);
    viewLayout->setContentsMargins(0, 0, 0, 0);
    viewLayout->addWidget(viewTabs_, 1);
    viewLayout->addLayout(controlsRow);
    viewLayout->addWidget(statusLabel_);

    auto* queueView = new QListView;
    queueView->setObjectName(QStringLiteral("queueView"));
    queueView->setModel(runs_->queue());
    bottomTabs_->addTab(runsPanel_, tr("Runs"));
    bottomTabs_->addTab(queueView, tr("Queue"));
    bottomTabs_->addTab(logView_, tr("Log"));
    // The queue tab says how many runs wait, without opening it.
    const auto showQueueLength = [this, queueView] {
        const int waiting = runs_->queue()->rowCount();
        bottomTabs_->setTabText(bottomTabs_->indexOf(queueView),
                                waiting == 0 ? tr("Queue") : tr("Queue (%1)").arg(waiting));
    };
    connect(runs_->queue(), &QAbstractItemModel::rowsInserted, this, showQueueLength);
    connect(runs_->queue(), &QAbstractItemModel::rowsRemoved, this, showQueueLength);
    connect(runs_->queue(), &QAbstractItemModel::modelReset, this, showQueueLength);

    // The table and log can be dragged taller, or shorter to favour the charts.
    auto* rightSplitter = new QSplitter(Qt::Vertical);
    rightSplitter->addWidget(viewColumn);
    rightSplitter->addWidget(bottomTabs_);
    rightSplitter->setChildrenCollapsible(false);
    rightSplitter->setStretchFactor(0, 3);
    rightSplitter->setStretchFactor(1, 1);
    rightSplitter->setSizes({620, 220});

    auto* central = new QWidget;
    auto* centralLayout = new QHBoxLayout(central);
    centralLayout->addWidget(configScroll_);
    centralLayout->addWidget(rightSplitter, 1);
    setCentralWidget(central);
    // Never larger than the screen (a 1280x720 projector, say).
    resize(QSize(1400, 900).boundedTo(screen()->availableGeometry().size()));

    connect(startButton_, &QPushButton::clicked, this, &MainWindow::startRun);
    connect(compareButton_, &QPushButton::clicked, this, &MainWindow::startComparison);
    connect(stopButton_, &QPushButton::clicked, this, &MainWindow::stopRun);
    connect(configPanel_, &RunConfigPanel::validityChanged, this, &MainWindow::updateControls);
    connect(configPanel_, &RunConfigPanel::configChanged, this, [this] {
        updateControls();
        saveSettings();
    });

    connect(runs_.get(), &RunManager::runStarted, this, &MainWindow::onRunStarted);
    connect(runs_.get(), &RunManager::runUpdated, this, &MainWindow::onRunUpdated);
    connect(runs_.get(), &RunManager::runEnded, this, &MainWindow::onRunEnded);
    connect(runs_.get(), &RunManager::historyFailed, this, [this](const QString& message) {
        appendLog(tr("history: %1").arg(message));
        showStatus(tr("Could not record the run: %1").arg(message), true);
    });
    connect(runsModel_, &RunsTableModel::checkedChanged, this, &MainWindow::showRunOnCharts);
    connect(runsModel_, &RunsTableModel::comparisonsChanged, this, &MainWindow::updateSpeedupChart);
    connect(runsPanel_, &RunsPanel::deleteRequested, this, &MainWindow::deleteRuns);

    // The worker emits on its own thread; queued delivery runs these slots on
    // the GUI thread.
    const TrainingWorker* worker = runs_->worker();
    connect(worker, &TrainingWorker::logLine, this, &MainWindow::appendLog, Qt::QueuedConnection);
    connect(worker, &TrainingWorker::batchProgress, this, &MainWindow::showBatchProgress,
            Qt::QueuedConnection);
    connect(worker, &TrainingWorker::lossesReported, charts_->lossChart(), &LossChart::appendLosses,
            Qt::QueuedConnection);
    connect(worker, &TrainingWorker::stepReported, batchSplitView_, &BatchSplitView::showStep,
            Qt::QueuedConnection);
    connect(worker, &TrainingWorker::predictionsReported, predictionStrip_,
            &PredictionStrip::showPredictions, Qt::QueuedConnection);

    // Read everything first: applying one setting saves them all.
    const QSettings settings;
    const dp::TrainConfig lastConfig = loadRunConfig(settings);
    const bool scale = settings.value(kScaleKey, false).toBool();
    const bool secondsAxis = settings.value(kSecondsAxisKey, false).toBool();
    const bool smoothLoss = settings.value(kSmoothLossKey, false).toBool();
    const bool logLoss = settings.value(kLogLossKey, false).toBool();
    configPanel_->setConfig(lastConfig);
    configPanel_->setScalesWithDeviceCount(scale);
    secondsAxisAction_->setChecked(secondsAxis);
    smoothLossAction_->setChecked(smoothLoss);
    logLossAction_->setChecked(logLoss);
    loadHistory();
    updateControls();
    showStatus(tr("Ready"));
}

MainWindow::~MainWindow() = default;

void MainWindow::buildMenus()
{
    QMenu* fileMenu = menuBar()->addMenu(tr("&File"));
    QAction* importAction = fileMenu->addAction(tr("&Import run record…"), this,
                                                &MainWindow::chooseImportFile);
    importAction->setObjectName(QStringLiteral("importAction"));
    importAction->setToolTip(tr("Add a run record JSON (dp-train --record, a cluster run's run.json)"));
    QAction* exportAction =
        fileMenu->addAction(tr("&Export charts and tables…"), this, &MainWindow::chooseExportFolder);
    exportAction->setObjectName(QStringLiteral("exportAction"));
    exportAction->setShortcut(QKeySequence(tr("Ctrl+E")));
    fileMenu->addSeparator();
    fileMenu->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* runMenu = menuBar()->addMenu(tr("&Run"));
    runMenu->addAction(tr("&Start or queue"), QKeySequence(tr("Ctrl+R")), this,
                       &MainWindow::startRun);
    runMenu->addAction(tr("&Compare 1 vs N"), this, &MainWindow::startComparison);
    runMenu->addAction(tr("S&top"), QKeySequence(tr("Ctrl+.")), this, &MainWindow::stopRun);
    runMenu->addSeparator();
    retuneAction_ = runMenu->addAction(tr("&Re-measure kernels on the next run"));
    retuneAction_->setObjectName(QStringLiteral("retuneAction"));
    retuneAction_->setCheckable(true);
    retuneAction_->setToolTip(
            tr("Kernels are measured once per machine and reused, so the same settings give the "
               "same results. Re-measuring may pick faster kernels (after an upgrade, say); that "
               "run is then not bit-identical to earlier ones."));
    QAction* clusterAction =
        runMenu->addAction(tr("Cl&uster command…"), this, &MainWindow::showClusterCommand);
    clusterAction->setObjectName(QStringLiteral("clusterCommandAction"));

    QMenu* viewMenu = menuBar()->addMenu(tr("&View"));
    presenterAction_ = viewMenu->addAction(tr("&Presenter mode"));
    presenterAction_->setObjectName(QStringLiteral("presenterAction"));
    presenterAction_->setCheckable(true);
    presenterAction_->setShortcuts({QKeySequence(Qt::Key_F11), QKeySequence(tr("Ctrl+Shift+P"))});
    presenterAction_->setToolTip(tr("Large fonts, no settings panel: for a projector"));
    connect(presenterAction_, &QAction::toggled, this, &MainWindow::setPresenterMode);
    secondsAxisAction_ = viewMenu->addAction(tr("X axis in training &seconds"));
    secondsAxisAction_->setObjectName(QStringLiteral("secondsAxisAction"));
    secondsAxisAction_->setCheckable(true);
    secondsAxisAction_->setShortcut(QKeySequence(tr("Ctrl+T")));
    connect(secondsAxisAction_, &QAction::toggled, this, [this](bool seconds) {
        setXAxisMode(seconds ? XAxisMode::seconds : XAxisMode::epochs);
        saveSettings();
    });
    smoothLossAction_ = viewMenu->addAction(tr("Smooth the &loss (moving average)"));
    smoothLossAction_->setObjectName(QStringLiteral("smoothLossAction"));
    smoothLossAction_->setCheckable(true);
    connect(smoothLossAction_, &QAction::toggled, this, [this](bool smoothed) {
        charts_->setSmoothedLoss(smoothed);
        saveSettings();
    });
    logLossAction_ = viewMenu->addAction(tr("L&og scale for the loss"));
    logLossAction_->setObjectName(QStringLiteral("logLossAction"));
    logLossAction_->setCheckable(true);
    logLossAction_->setToolTip(tr("Loss on a log scale: late, small improvements stay visible"));
    connect(logLossAction_, &QAction::toggled, this, [this](bool log) {
        charts_->setLogScaleLoss(log);
        saveSettings();
    });
    QAction* resetZoomAction = viewMenu->addAction(tr("&Reset chart zoom"), QKeySequence(tr("Ctrl+0")),
                                                   charts_, &ChartBoard::resetZoom);
    resetZoomAction->setObjectName(QStringLiteral("resetZoomAction"));

    // The chart switches a teacher flips most, also beside the charts.
    auto* axisCombo = new QComboBox;
    axisCombo->setObjectName(QStringLiteral("xAxisCombo"));
    axisCombo->addItem(tr("x: epoch"));
    axisCombo->addItem(tr("x: seconds"));
    connect(axisCombo, &QComboBox::currentIndexChanged, secondsAxisAction_,
            [this](int index) { secondsAxisAction_->setChecked(index == 1); });
    connect(secondsAxisAction_, &QAction::toggled, axisCombo,
            [axisCombo](bool seconds) { axisCombo->setCurrentIndex(seconds ? 1 : 0); });
    chartSwitches_ = new QWidget;
    auto* switchesLayout = new QHBoxLayout(chartSwitches_);
    switchesLayout->setContentsMargins(0, 0, 0, 0);
    switchesLayout->addStretch();
    switchesLayout->addWidget(axisCombo);
    switchesLayout->addWidget(
            buttonFor(smoothLossAction_, tr("Smooth loss"), QStringLiteral("smoothLossButton")));
    switchesLayout->addWidget(
            buttonFor(logLossAction_, tr("Log loss"), QStringLiteral("logLossButton")));
}

void MainWindow::loadHistory()
{
    if (!history_)
        return;
    try {
        for (const dp::RunRecord& record : history_->runs())
            runsModel_->upsert(record, true);
    } catch (const dp::Error& error) {
        appendLog(tr("history: %1").arg(QString::fromUtf8(error.what())));
    }
}

dp::TrainConfig MainWindow::runConfig() const
{
    return configPanel_->config();
}

void MainWindow::setRunConfig(const dp::TrainConfig& config)
{
    configPanel_->setConfig(config);
}

void MainWindow::setComparisonScaling(bool scaleBatchAndLr)
{
    configPanel_->setScalesWithDeviceCount(scaleBatchAndLr);
}

bool MainWindow::isRunning() const
{
    return runs_->isRunning() || !runs_->queue()->isEmpty();
}

void MainWindow::startRun()
{
    if (!configPanel_->isValid())
        return;
    const bool queued = runs_->isRunning();
    runs_->enqueue(withRetuneRequest(configPanel_->config()));
    retuneAction_->setChecked(false);  // a request for one run
    if (queued)
        showStatus(tr("Queued: it starts when the current run ends"));
}

dp::TrainConfig MainWindow::withRetuneRequest(dp::TrainConfig config) const
{
    config.retune = retuneAction_->isChecked();
    return config;
}

void MainWindow::startComparison()
{
    if (!configPanel_->isValid() || configPanel_->checkedDeviceCount() < 2)
        return;
    const dp::TrainConfig base = configPanel_->config();
    const int devices = int(base.devices.size());
    try {
        // Where the 1-device run leaves its parameters after each epoch for
        // the N-device run's drift; kept while the window is open.
        auto snapshots = std::make_unique<QTemporaryDir>();
        const std::vector<dp::TrainConfig> configs =
            dp::comparison_configs(base, {1, devices}, configPanel_->scalesWithDeviceCount(),
                                   snapshots->isValid() ? snapshots->path().toStdString() : "");
        comparisonSnapshots_.push_back(std::move(snapshots));
        for (const dp::TrainConfig& config : configs)
            dp::validate(config);
        const std::string group = dp::new_comparison_group();
        for (const dp::TrainConfig& config : configs)
            runs_->enqueue(withRetuneRequest(config), group);
        retuneAction_->setChecked(false);
        appendLog(tr("— compare 1 vs %1 devices%2")
                      .arg(devices)
                      .arg(configPanel_->scalesWithDeviceCount()
                               ? tr(", batch and learning rate scaled with the device count")
                               : QString()));
    } catch (const dp::Error& error) {
        showStatus(tr("Cannot compare: %1").arg(engineMessage(error.what())), true);
    }
}

void MainWindow::stopRun()
{
    if (!runs_->isRunning())
        return;
    runs_->stopAll();
    stopRequested_ = true;
    updateControls();
    showStatus(tr("Stopping after the current batch…"));
}

void MainWindow::updateControls()
{
    const bool running = runs_->isRunning();
    const bool valid = configPanel_->isValid();
    startButton_->setEnabled(valid);
    startButton_->setText(running ? tr("Queue next") : tr("Start"));
    compareButton_->setEnabled(valid && configPanel_->checkedDeviceCount() >= 2);
    compareButton_->setText(tr("Compare 1 vs %1").arg(std::max(2, configPanel_->checkedDeviceCount())));
    stopButton_->setEnabled(running && !stopRequested_);
    const dp::RunRecord* current = runs_->currentRun();
    runsPanel_->setBusyRun(current ? current->id : std::string());
}

void MainWindow::onRunStarted(const dp::RunRecord& record)
{
    stopRequested_ = false;
    runsModel_->upsert(record);
    const int row = runsModel_->rowOf(record.id);
    const QColor color = runsModel_->color(row);
    charts_->startRun(record, color);
    batchSplitView_->clear();
    predictionStrip_->clear();
    predictionStrip_->setClassNames(classNames(record.config));

    const QString label = QString::fromStdString(record.label());
    appendLog(QStringLiteral("— %1, %2 epochs").arg(label).arg(record.config.epochs));
    batchProgressBar_->setRange(0, 0);  // busy until the first batch reports
    batchProgressBar_->setFormat(tr("loading data"));
    showStatus(tr("Starting %1…").arg(label));
    updateControls();
}

void MainWindow::onRunUpdated(const dp::RunRecord& record)
{
    runsModel_->upsert(record);
    const int row = runsModel_->rowOf(record.id);
    if (runsModel_->isChecked(row))
        charts_->updateRun(record, runsModel_->color(row));
    const dp::EpochMetrics& metrics = record.epochs.back();
    // Same line as dp-train prints, so GUI and CLI logs compare directly.
    appendLog(QString::fromStdString(dp::epoch_line(metrics, record.config.epochs)));
    // A pending stop keeps its "Stopping…" status until the run ends.
    if (!stopRequested_)
        showStatus(tr("epoch %1/%2 · test acc %3 · %4 sec/epoch")
                       .arg(metrics.epoch)
                       .arg(record.config.epochs)
                       .arg(metrics.test_acc, 0, 'f', 2)
                       .arg(formatSeconds(metrics.seconds)));
    emit epochPlotted(metrics.epoch);
}

void MainWindow::onRunEnded(const dp::RunRecord& record, const QString& message)
{
    runsModel_->upsert(record);
    charts_->refreshNow();
    const int epochsDone = int(record.epochs.size());
    if (record.status == dp::RunStatus::failed) {
        appendLog(tr("error: %1").arg(message));
        showIdleProgress(tr("failed"));
        showStatus(tr("Error: %1").arg(message), true);
    } else if (record.status == dp::RunStatus::stopped) {
        appendLog(message);
        showIdleProgress(tr("stopped"));
        showStatus(epochsDone == 0 ? tr("Stopped before the first epoch ended")
                                   : tr("Stopped after epoch %1/%2 · %3")
                                         .arg(epochsDone)
                                         .arg(record.config.epochs)
                                         .arg(message));
    } else {
        appendLog(message);
        showIdleProgress(tr("finished"));
        showStatus(tr("Finished · %1").arg(message));
    }
    if (!runs_->isRunning())
        stopRequested_ = false;
    updateControls();
    emit runEnded();
}

void MainWindow::showRunOnCharts(const dp::RunRecord& record, bool shown)
{
    charts_->setRunVisible(record, runsModel_->color(runsModel_->rowOf(record.id)), shown);
}

void MainWindow::updateSpeedupChart()
{
    std::vector<SpeedupChart::Measurement> measurements;
    for (int row = 0; row < runsModel_->rowCount(); ++row) {
        const std::optional<RunComparison> comparison = runsModel_->comparison(row);
        if (!comparison || !comparison->speedup || !comparison->baseline)
            continue;
        const int baselineRow = int(*comparison->baseline);
        const dp::RunRecord& baseline = runsModel_->record(baselineRow);
        measurements.push_back({QString::fromStdString(baseline.id),
                                tr("vs %1").arg(QString::fromStdString(baseline.label())),
                                runsModel_->color(baselineRow),
                                int(runsModel_->record(row).config.devices.size()),
                                *comparison->speedup});
    }
    charts_->setSpeedupMeasurements(std::move(measurements));
}

void MainWindow::deleteRuns(const std::vector<std::string>& ids)
{
    for (const std::string& id : ids) {
        try {
            if (history_)
                history_->remove(id);
        } catch (const dp::Error& error) {
            showStatus(tr("Could not delete: %1").arg(QString::fromUtf8(error.what())), true);
            return;
        }
        charts_->removeRun(id);
        runsModel_->remove(id);
    }
    showStatus(tr("Deleted %n run(s) from the history", nullptr, int(ids.size())));
}

bool MainWindow::importRunRecord(const QString& path)
{
    try {
        const dp::RunRecord record = readRunRecord(path);
        if (history_)
            history_->save(record);
        runsModel_->upsert(record);
        showRunOnCharts(record, runsModel_->isChecked(runsModel_->rowOf(record.id)));
        showStatus(tr("Imported %1").arg(QString::fromStdString(record.label())));
        appendLog(tr("imported %1 from %2").arg(QString::fromStdString(record.id), path));
        return true;
    } catch (const dp::Error& error) {
        showStatus(tr("Import failed: %1").arg(QString::fromUtf8(error.what())), true);
        return false;
    }
}

bool MainWindow::exportTo(const QString& folder)
{
    if (!QDir().mkpath(folder)) {
        showStatus(tr("Export failed: cannot create %1").arg(folder), true);
        return false;
    }
    const QDir dir(folder);
    QString failed = charts_->exportTo(dir);
    const QString splitPng = dir.filePath(QStringLiteral("batch_split.png"));
    if (failed.isEmpty() && !writeWidgetPng(*batchSplitView_, splitPng))
        failed = splitPng;
    const QString splitSvg = dir.filePath(QStringLiteral("batch_split.svg"));
    if (failed.isEmpty() && !writeWidgetSvg(*batchSplitView_, splitSvg, QStringLiteral("batch_split")))
        failed = splitSvg;
    if (!failed.isEmpty()) {
        showStatus(tr("Export failed: cannot write %1").arg(failed), true);
        return false;
    }
    const std::vector<dp::RunRecord> runs = runsModel_->checkedRecords();
    const double target = runsModel_->targetAccuracy();
    const std::vector<std::pair<QString, QByteArray>> tables = {
        {QStringLiteral("runs.csv"), runsToCsv(runs, target)},
        {QStringLiteral("runs.json"), runsToJson(runs, target)},
        {QStringLiteral("epochs.csv"), epochsToCsv(runs)},
    };
    for (const auto& [name, contents] : tables) {
        if (!writeFile(dir.filePath(name), contents)) {
            showStatus(tr("Export failed: cannot write %1").arg(dir.filePath(name)), true);
            return false;
        }
    }
    showStatus(tr("Exported the charts and %n run(s) to %1", nullptr, int(runs.size())).arg(folder));
    return true;
}

void MainWindow::setPresenterMode(bool on)
{
    if (presenterAction_->isChecked() != on) {
        presenterAction_->setChecked(on);  // comes back here through toggled
        return;
    }
    // The charts and classroom views get the whole window.
    configScroll_->setVisible(!on);
    bottomTabs_->setVisible(!on);
    QFont font = QApplication::font();
    if (on)
        font.setPointSizeF(font.pointSizeF() * kPresenterFontScale);
    centralWidget()->setFont(font);
    charts_->setFontScale(on ? kPresenterFontScale : 1.0);
}

void MainWindow::setXAxisMode(XAxisMode mode)
{
    charts_->setXAxisMode(mode);
    secondsAxisAction_->setChecked(mode == XAxisMode::seconds);
}

void MainWindow::showClusterCommand()
{
    ClusterCommandDialog dialog(configPanel_->config(), this);
    dialog.exec();
}

void MainWindow::chooseImportFile()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Import run record"), QString(),
                                                      tr("Run records (*.json);;All files (*)"));
    if (!path.isEmpty())
        importRunRecord(path);
}

void MainWindow::chooseExportFolder()
{
    const QString folder =
        QFileDialog::getExistingDirectory(this, tr("Export charts and tables to folder"));
    if (!folder.isEmpty())
        exportTo(folder);
}

void MainWindow::showBatchProgress(int epoch, int batch, int batchesPerEpoch, double loss)
{
    batchProgressBar_->setRange(0, batchesPerEpoch);
    batchProgressBar_->setValue(batch);
    batchProgressBar_->setFormat(tr("epoch %1 · batch %2/%3 · loss %4")
                                     .arg(epoch)
                                     .arg(batch)
                                     .arg(batchesPerEpoch)
                                     .arg(loss, 0, 'f', 3));
}

void MainWindow::showIdleProgress(const QString& text)
{
    batchProgressBar_->setRange(0, 1);
    batchProgressBar_->setValue(0);
    batchProgressBar_->setFormat(text);
}

void MainWindow::showStatus(const QString& text, bool isError)
{
    statusLabel_->setText(text);
    statusLabel_->setStyleSheet(isError ? QStringLiteral("color: #c62828;") : QString());
}

void MainWindow::appendLog(const QString& line)
{
    logView_->appendPlainText(line);
}

void MainWindow::saveSettings()
{
    QSettings settings;
    storeRunConfig(settings, configPanel_->config());
    settings.setValue(kScaleKey, configPanel_->scalesWithDeviceCount());
    settings.setValue(kSecondsAxisKey, secondsAxisAction_->isChecked());
    settings.setValue(kSmoothLossKey, smoothLossAction_->isChecked());
    settings.setValue(kLogLossKey, logLossAction_->isChecked());
}
