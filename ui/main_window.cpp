#include "main_window.h"
#include "x_axis_choice.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <unordered_set>

#include <QAbstractAxis>
#include <QAction>
#include <QApplication>
#include <QChart>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFontDatabase>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QKeySequence>
#include <QLabel>
#include <QLegend>
#include <QLineSeries>
#include <QListView>
#include <QMessageBox>
#include <QScreen>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include "batch_split_view.h"
#include "cluster_command_dialog.h"
#include "comparison_summary_card.h"
#include "vocabulary.h"
#include "core/error.h"
#include "core/exception_message.h"
#include "io/workbench_files.h"
#include "dataset_metadata.h"
#include "engine_message.h"
#include "chart_board.h"
#include "classroom_page.h"
#include "seed_group_charts.h"
#include "empty_chart_guide.h"
#include "scaling_prediction_chart.h"
#include "scaling_prediction_page.h"
#include "epoch_metric_chart.h"
#include "loss_chart.h"
#include "prediction_strip.h"
#include "help_menu.h"
#include "lesson_banner.h"
#include "lesson_starter.h"
#include "lessons_menu.h"
#include "run_time_estimates.h"
#include "run_config_panel.h"
#include "run_export.h"
#include "run_history.h"
#include "scratch_folders.h"
#include "run_manager.h"
#include "record/run_record_json.h"
#include "run_settings.h"
#include "runs_panel.h"
#include "runs_panel_fit.h"
#include "runs_table_model.h"
#include "speedup_chart.h"
#include "scaling/scaling_comparison.h"
#include "training_worker.h"
#include "widget_image_export.h"

namespace {

constexpr int kMaxLogLines = 10000;
// How often the window looks for other programs' changes to the history: a
// scan of the runs table (not their epochs) each time, soon after an epoch.
constexpr int kHistoryFollowInterval = 2000;  // ms
// Presenter mode: text a class can read from the back of the room.
constexpr double kPresenterFontScale = 1.6;
// No plot shorter outside presenter mode: shorter, the charts show one at a
// time (the focus view) rather than 60 px strips.
constexpr int kLeastPlotHeight = 200;
// An import of more runs draws only the last of them: a thousand lines read
// as one smear, and QtCharts takes minutes to build and remove them.
constexpr std::size_t kMostRunsDrawnOnImport = 30;

const QString kScaleKey = QStringLiteral("compare/scale_batch_and_lr");
const QString kRepeatsKey = QStringLiteral("compare/repeats");
const QString kSmoothLossKey = QStringLiteral("view/smooth_loss");
const QString kGeometryKey = QStringLiteral("window/geometry");
const QString kSplitterKey = QStringLiteral("window/splitter");
// The ids of the runs checked (drawn on the charts), so a restart shows them again.
const QString kCheckedRunsKey = QStringLiteral("runs/checked");
const QString kLogLossKey = QStringLiteral("view/log_loss");
const QString kWriteTracesKey = QStringLiteral("run/write_step_traces");

// A chart's title, legend and axes in `font`: presenter mode enlarges the
// Scaling chart with the rest of the window.
void scaleChartFonts(QChart& chart, const QFont& font)
{
    QFont title = font;
    title.setBold(true);
    chart.setTitleFont(title);
    chart.legend()->setFont(font);
    for (QAbstractAxis* axis : chart.axes()) {
        axis->setLabelsFont(font);
        axis->setTitleFont(font);
    }
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

// F11 and Ctrl+Shift+P switch presenter mode; Esc also leaves it, as it
// leaves a full-screen slide show.
QList<QKeySequence> presenterShortcuts(bool presenting)
{
    QList<QKeySequence> keys{QKeySequence(Qt::Key_F11), QKeySequence(MainWindow::tr("Ctrl+Shift+P"))};
    if (presenting)
        keys.append(QKeySequence(Qt::Key_Escape));
    return keys;
}

// A page that takes a scroll area's height and scrolls only below its own
// minimum: QScrollArea gives a height-for-width page (wrapped text in it) its
// preferred height for the width, the charts at their tallest, mostly out of view.
class FillingPage : public QWidget {
public:
    using QWidget::QWidget;
    int heightForWidth(int width) const override { return layout()->minimumHeightForWidth(width); }
};

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
      summaryCard_(new ComparisonSummaryCard),
      classroomPage_(new ClassroomPage),
      scalingPage_(new ScalingPredictionPage),
      viewTabs_(new QTabWidget),
      bottomTabs_(new QTabWidget),
      settingsSplitter_(new QSplitter(Qt::Horizontal)),
      rightSplitter_(new QSplitter(Qt::Vertical)),
      runsPanel_(new RunsPanel(runsModel_)),
      startButton_(new QPushButton(style()->standardIcon(QStyle::SP_MediaPlay), tr("Start"))),
      compareButton_(new QPushButton(tr("Compare 1 vs N"))),
      stopButton_(new QPushButton(style()->standardIcon(QStyle::SP_MediaStop), tr("Stop"))),
      batchProgressBar_(new QProgressBar),
      statusLabel_(new QLabel),
      logView_(new QPlainTextEdit),
      presenterHints_(new QLabel)
{
    setWindowTitle(tr("DP Workbench"));
    confirm_ = [this](const QString& question) {
        return QMessageBox::question(this, tr("DP Workbench"), question,
                                     QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel)
            == QMessageBox::Yes;
    };
    const QString historyProblem = openHistory();  // shown above the runs table once it exists
    runs_ = std::make_unique<RunManager>(history_.get());
    // A killed workbench never removed its comparisons' snapshots.
    removeScratchOfDeadWorkbenches();

    nameWidgets();
    setUpControls();
    buildConfigScroll();
    buildMenus();
    buildLayout();

    connectControls();
    connectRunSignals();
    connectWorker();

    restoreSettings();
    if (!historyProblem.isEmpty()) {
        runsPanel_->showHistoryProblem(historyProblem);
        appendLog(historyProblem);
    }
    loadHistory();
    // Other programs' runs move on, end, or lose their process meanwhile.
    auto* historyFollower = new QTimer(this);
    connect(historyFollower, &QTimer::timeout, this, &MainWindow::followHistory);
    historyFollower->start(kHistoryFollowInterval);
    updateControls();
    showStatus(tr("Ready"));
    showSettingsProblem();
}

QString MainWindow::openHistory()
{
    try {
        history_ = std::make_unique<RunHistory>();
    } catch (const dp::Error& error) {
        // The workbench still trains; runs are just not kept.
        history_.reset();
        return tr("History unavailable, runs are not kept: %1").arg(QString::fromUtf8(error.what()));
    }
    return {};
}

void MainWindow::nameWidgets()
{
    configPanel_->setObjectName(QStringLiteral("runConfigPanel"));
    viewTabs_->setObjectName(QStringLiteral("viewTabs"));
    bottomTabs_->setObjectName(QStringLiteral("bottomTabs"));
    runsPanel_->setObjectName(QStringLiteral("runsPanel"));
    startButton_->setObjectName(QStringLiteral("startButton"));
    compareButton_->setObjectName(QStringLiteral("compareButton"));
    stopButton_->setObjectName(QStringLiteral("stopButton"));
    batchProgressBar_->setObjectName(QStringLiteral("batchProgressBar"));
    // A light fill under dark text: the text reads the same on both sides of the fill's edge.
    batchProgressBar_->setStyleSheet(QStringLiteral(
        "QProgressBar { text-align: center; color: palette(window-text); }"
        "QProgressBar::chunk { background-color: #bbdefb; }"));
    statusLabel_->setObjectName(QStringLiteral("statusLabel"));
    logView_->setObjectName(QStringLiteral("logView"));
    presenterHints_->setObjectName(QStringLiteral("presenterHints"));
    presenterHints_->setWordWrap(true);
    presenterHints_->setStyleSheet(QStringLiteral("background: #fff8e1; color: #5d4037; padding: 4px;"));
    presenterHints_->hide();
}

void MainWindow::setUpControls()
{
    startButton_->setDefault(true);
    startButton_->setToolTip(tr("Train with these settings (Ctrl+R); during a run, queue them next"));
    stopButton_->setToolTip(tr("Stop the run after its current batch, keeping its finished "
                               "epochs, and drop the queued runs"));
    showIdleProgress(tr("no run yet"));
    statusLabel_->setWordWrap(true);
    statusLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    logView_->setReadOnly(true);
    logView_->setMaximumBlockCount(kMaxLogLines);
    logView_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    logView_->setPlaceholderText(tr("Engine log"));
}

void MainWindow::buildConfigScroll()
{
    // The panel grows as notes appear; a short window scrolls it.
    scrollVertically(configScroll_, configPanel_);
}

void MainWindow::scrollVertically(QScrollArea* area, QWidget* content) const
{
    // The content follows the area's width and keeps at least its minimum
    // height, scrolling up and down; the area is as wide as the content's
    // minimum and the scroll bar, so that the bar never covers it.
    area->setWidget(content);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    area->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    area->setMinimumWidth(scrolledWidthFor(content->minimumSizeHint()));
}

int MainWindow::scrolledWidthFor(QSize contentSize) const
{
    return contentSize.width() + style()->pixelMetric(QStyle::PM_ScrollBarExtent) + 4;
}

void MainWindow::buildLayout()
{
    buildViewTabs();
    QWidget* viewColumn = buildViewColumn();
    buildBottomTabs();

    // The table and log can be dragged taller, or shorter to favour the charts.
    rightSplitter_->setObjectName(QStringLiteral("rightSplitter"));
    rightSplitter_->addWidget(viewColumn);
    rightSplitter_->addWidget(bottomTabs_);
    rightSplitter_->setChildrenCollapsible(false);
    rightSplitter_->setStretchFactor(0, 2);
    rightSplitter_->setStretchFactor(1, 1);

    // The settings can be dragged narrower, down to their minimum; the views
    // take what the window gains or loses.
    settingsSplitter_->setObjectName(QStringLiteral("settingsSplitter"));
    settingsSplitter_->addWidget(configScroll_);
    settingsSplitter_->addWidget(rightSplitter_);
    settingsSplitter_->setChildrenCollapsible(false);
    settingsSplitter_->setStretchFactor(0, 0);
    settingsSplitter_->setStretchFactor(1, 1);
    setCentralWidget(settingsSplitter_);
    resizeToScreen();
    settingsSplitter_->setSizes({scrolledWidthFor(configPanel_->sizeHint()), width()});
    // The runs table as tall as its rows, up to a third; the charts the rest.
    rightSplitter_->setSizes({height() * 2 / 3, height() / 3});
    new RunsPanelFit(rightSplitter_, runsPanel_->findChild<QTableView*>(QStringLiteral("runsTable")), this);
}

void MainWindow::resizeToScreen()
{
    // 80% of a large screen (1920x1080, 4K), 1400x900 on a smaller one, and
    // never more than most of the screen (a 1280x720 projector); centred.
    // The size the user left is restored later.
    const QRect screenArea = screen()->availableGeometry();
    const QSize share = screenArea.size() * 4 / 5;
    const QSize most = screenArea.size() * 19 / 20;
    resize(share.expandedTo(QSize(1400, 900)).expandedTo(minimumSizeHint()).boundedTo(most));
    move(screenArea.center() - rect().center());
}

void MainWindow::buildViewTabs()
{
    // Charts: the run's progress on the left, how it scales on the right.
    // The switches stay in view; the card and the charts scroll where the
    // window is too short for both (a comparison's card on a 768-line screen).
    auto* cardAndCharts = new FillingPage;
    auto* cardAndChartsLayout = new QVBoxLayout(cardAndCharts);
    cardAndChartsLayout->setContentsMargins(0, 0, 0, 0);
    cardAndChartsLayout->setSpacing(2);
    cardAndChartsLayout->addWidget(presenterHints_);
    cardAndChartsLayout->addWidget(lessonBanner_);
    cardAndChartsLayout->addWidget(summaryCard_);
    cardAndChartsLayout->addWidget(charts_, 1);
    auto* chartsScroll = new QScrollArea;
    chartsScroll->setObjectName(QStringLiteral("chartsScroll"));
    scrollVertically(chartsScroll, cardAndCharts);

    auto* chartsPage = new QWidget;
    auto* chartsLayout = new QVBoxLayout(chartsPage);
    chartsLayout->setContentsMargins(0, 4, 0, 0);
    chartsLayout->setSpacing(2);
    chartsLayout->addWidget(chartSwitches_);
    chartsLayout->addWidget(chartsScroll, 1);

    viewTabs_->addTab(chartsPage, tr("Charts"));
    viewTabs_->addTab(classroomPage_, tr("Classroom"));
    viewTabs_->addTab(scalingPage_, tr("Scaling"));
}

QWidget* MainWindow::buildViewColumn()
{
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
    return viewColumn;
}

void MainWindow::buildBottomTabs()
{
    auto* queueView = new QListView;
    queueView->setObjectName(QStringLiteral("queueView"));
    queueView->setModel(runs_->queue());
    bottomTabs_->addTab(runsPanel_, tr("Runs"));
    // An empty queue says how runs get into it rather than showing a blank list.
    auto* queueEmpty = new QLabel(tr("No runs waiting: Start while a run trains queues the next"));
    queueEmpty->setObjectName(QStringLiteral("queueEmptyLabel"));
    queueEmpty->setAlignment(Qt::AlignCenter);
    queueEmpty->setWordWrap(true);
    auto* queuePage = new QStackedWidget;
    queuePage->addWidget(queueEmpty);
    queuePage->addWidget(queueView);
    bottomTabs_->addTab(queuePage, tr("Queue"));
    bottomTabs_->addTab(logView_, tr("Log"));
    // The queue tab says how many runs wait, without opening it.
    const auto showQueueLength = [this, queuePage, queueEmpty, queueView] {
        const int waiting = runs_->queue()->rowCount();
        queuePage->setCurrentWidget(waiting == 0 ? static_cast<QWidget*>(queueEmpty) : queueView);
        bottomTabs_->setTabText(bottomTabs_->indexOf(queuePage),
                                waiting == 0 ? tr("Queue") : tr("Queue (%1)").arg(waiting));
    };
    connect(runs_->queue(), &QAbstractItemModel::rowsInserted, this, showQueueLength);
    connect(runs_->queue(), &QAbstractItemModel::rowsRemoved, this, showQueueLength);
    connect(runs_->queue(), &QAbstractItemModel::modelReset, this, showQueueLength);
}

void MainWindow::connectControls()
{
    connect(startButton_, &QPushButton::clicked, this, &MainWindow::startRun);
    connect(compareButton_, &QPushButton::clicked, this, &MainWindow::startComparison);
    connect(stopButton_, &QPushButton::clicked, this, &MainWindow::stopRun);
    connect(configPanel_, &RunConfigPanel::validityChanged, this, [this](bool valid) {
        updateControls();
        if (valid)
            showStatus(runs_->isRunning() ? tr("Settings ready to queue") : tr("Ready"));
    });
    connect(configPanel_, &RunConfigPanel::configChanged, this, [this] {
        updateControls();
        showSettingsProblem();
        showPresenterHints();
        saveSettings();
    });
}

void MainWindow::connectRunSignals()
{
    connect(runs_.get(), &RunManager::runStarted, this, &MainWindow::onRunStarted);
    connect(runs_.get(), &RunManager::runUpdated, this, &MainWindow::onRunUpdated);
    connect(runs_.get(), &RunManager::runEnded, this, &MainWindow::onRunEnded);
    connect(runs_.get(), &RunManager::historyFailed, this, [this](const QString& message) {
        appendLog(tr("history: %1").arg(message));
        showStatus(tr("Could not record the run: %1").arg(message), true);
    });
    connect(runs_.get(), &RunManager::traceFailed, this, [this](const QString& message) {
        appendLog(tr("warning: %1").arg(message));
    });
    connect(runs_.get(), &RunManager::runNotKept, this,
            [this](const dp::RunRecord& record, const QString& asideFile, const QString& asideProblem) {
                const QString where = asideFile.isEmpty()
                    ? tr("nor saved elsewhere: %1").arg(asideProblem)
                    : tr("saved as %1; File ▸ Import adds it once the history can be written").arg(asideFile);
                runsModel_->setNotInHistory(record.id, tr("Not in the history: %1").arg(where));
                appendLog(tr("Not in the history: %1").arg(where));
                showStatus(tr("%1 · not kept in the history: %2").arg(statusLabel_->text(), where),
                           true);
            });
    connect(runsModel_, &RunsTableModel::checkedChanged, this, &MainWindow::showRunOnCharts);
    connect(runsModel_, &RunsTableModel::checkedChanged, this, &MainWindow::saveCheckedRuns);
    classroomPage_->followRuns(runsModel_);
    new SeedGroupCharts(runsModel_, charts_, this);  // grouped seeds as median and band
    // Compare's button says how long it takes, the progress bar the queue's time.
    timeEstimates_ = new RunTimeEstimates(configPanel_, runs_.get(), this);
    connect(timeEstimates_, &RunTimeEstimates::estimatesChanged, this, &MainWindow::updateControls);
    // The accuracy chart says what to do while it is empty (timed by the same probe).
    new EmptyChartGuide(runsModel_, configPanel_, charts_->findChild<QChartView*>(QStringLiteral("accuracyChart")), this,
                        timeEstimates_->probe());
    connect(runsModel_, &RunsTableModel::comparisonsChanged, this, &MainWindow::updateSpeedupChart);
    connect(runsModel_, &RunsTableModel::checkedChanged, this, &MainWindow::updateScalingPrediction);
    connect(runsModel_, &RunsTableModel::comparisonsChanged, this, &MainWindow::updateScalingPrediction);
    connect(runsPanel_, &RunsPanel::deleteRequested, this, &MainWindow::deleteRuns);
    connect(runsModel_, &RunsTableModel::runRenamed, this, &MainWindow::renameRun);
    connect(runsModel_, &RunsTableModel::runAnnotated, this, [this](const dp::RunRecord& record) {
        runs_->annotateCurrent(record);  // the run in flight keeps writing them
        saveEditedRun(record, tr("Could not keep the tags and notes: %1"));
    });
    connect(runsModel_, &RunsTableModel::renameRefused, this, [this](const QString& why) { showStatus(why, true); });
}

void MainWindow::connectWorker()
{
    // The worker emits on its own thread; queued delivery runs these slots on
    // the GUI thread.
    const TrainingWorker* worker = runs_->worker();
    connect(worker, &TrainingWorker::logLine, this, &MainWindow::appendLog, Qt::QueuedConnection);
    connect(worker, &TrainingWorker::batchProgress, this, &MainWindow::showBatchProgress,
            Qt::QueuedConnection);
    connect(worker, &TrainingWorker::lossesReported, charts_->lossChart(), &LossChart::appendLosses,
            Qt::QueuedConnection);
    connect(worker, &TrainingWorker::stepReported, classroomPage_, &ClassroomPage::showLiveStep,
            Qt::QueuedConnection);
    connect(worker, &TrainingWorker::predictionsReported, classroomPage_,
            &ClassroomPage::showLivePredictions, Qt::QueuedConnection);
}

void MainWindow::restoreSettings()
{
    // Read everything first: applying one setting saves them all.
    const QSettings settings;
    const dp::TrainConfig lastConfig = loadRunConfig(settings);
    const bool scale = settings.value(kScaleKey, false).toBool();
    const int repeats = settings.value(kRepeatsKey, 0).toInt();
    const XAxisMode xAxisMode = XAxisChoice::remembered(settings);
    const bool smoothLoss = settings.value(kSmoothLossKey, false).toBool();
    const bool logLoss = settings.value(kLogLossKey, false).toBool();
    const bool writeTraces = settings.value(kWriteTracesKey, false).toBool();
    restoreGeometry(settings.value(kGeometryKey).toByteArray());
    rightSplitter_->restoreState(settings.value(kSplitterKey).toByteArray());
    configPanel_->setDataFolders(loadDataFolders(settings));
    configPanel_->setConfig(lastConfig);
    configPanel_->setScalesWithDeviceCount(scale);
    configPanel_->setComparisonRepeatsField(repeats);
    xAxis_->setMode(xAxisMode);
    smoothLossAction_->setChecked(smoothLoss);
    logLossAction_->setChecked(logLoss);
    writeTracesAction_->setChecked(writeTraces);
}

MainWindow::~MainWindow() = default;

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (isRunning()) {
        // The window closes once the run's end is recorded (closeAfterRun).
        if (!closeAfterRun_
            && confirm_(tr("A run is in progress. Stop it and quit? Its finished epochs stay in "
                           "the history; queued runs are dropped.")))
            closeAfterRun();
        event->ignore();
        return;
    }
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kSplitterKey, rightSplitter_->saveState());
    event->accept();
}

void MainWindow::buildMenus()
{
    buildFileMenu();
    buildRunMenu();
    buildViewMenu();
    buildLessonsMenu();
    addHelpMenu(this);
    buildChartSwitches();
}

void MainWindow::buildFileMenu()
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
}

void MainWindow::buildRunMenu()
{
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
    runMenu->addSeparator();
    writeTracesAction_ = runMenu->addAction(tr("Write step &traces (Chrome JSON)"));
    writeTracesAction_->setObjectName(QStringLiteral("writeTracesAction"));
    writeTracesAction_->setCheckable(true);
    writeTracesAction_->setToolTip(
        tr("Each run started while this is on writes its step phases to %1 as it trains, for "
           "ui.perfetto.dev or chrome://tracing; File ▸ Export copies them. Off: no file.")
            .arg(stepTraceFolder()));
    connect(writeTracesAction_, &QAction::toggled, this, [this](bool on) {
        runs_->setTraceFolder(on ? stepTraceFolder() : QString());
        saveSettings();
    });
}

QString MainWindow::stepTraceFolder()
{
    return QString::fromStdString((dp::workbench_data_folder() / "traces").string());
}

void MainWindow::buildViewMenu()
{
    QMenu* viewMenu = menuBar()->addMenu(tr("&View"));
    presenterAction_ = viewMenu->addAction(tr("&Presenter mode"));
    presenterAction_->setObjectName(QStringLiteral("presenterAction"));
    presenterAction_->setCheckable(true);
    presenterAction_->setShortcuts(presenterShortcuts(false));
    presenterAction_->setToolTip(tr("Large fonts, no settings panel: for a projector"));
    connect(presenterAction_, &QAction::toggled, this, &MainWindow::setPresenterMode);
    xAxis_ = new XAxisChoice(this);
    viewMenu->addActions(xAxis_->actions());
    connect(xAxis_, &XAxisChoice::modeChanged, this, [this](XAxisMode mode) {
        setXAxisMode(mode);
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
    settingsPanelAction_ = viewMenu->addAction(tr("Se&ttings panel"));
    settingsPanelAction_->setObjectName(QStringLiteral("settingsPanelAction"));
    settingsPanelAction_->setCheckable(true);
    settingsPanelAction_->setChecked(true);
    settingsPanelAction_->setShortcut(QKeySequence(tr("Ctrl+Shift+S")));
    settingsPanelAction_->setToolTip(tr("Hide the settings to give the charts the width"));
    connect(settingsPanelAction_, &QAction::toggled, this, [this](bool shown) {
        configScroll_->setVisible(shown && !presenterAction_->isChecked());
    });
    QAction* resetZoomAction = viewMenu->addAction(tr("&Reset chart zoom"), QKeySequence(tr("Ctrl+0")),
                                                   charts_, &ChartBoard::resetZoom);
    resetZoomAction->setObjectName(QStringLiteral("resetZoomAction"));
}

void MainWindow::buildLessonsMenu()
{
    lessonBanner_ = new LessonBanner;
    lessons_ = new LessonStarter(configPanel_, runs_.get(), lessonBanner_, this);
    auto* lessonsMenu = new LessonsMenu(this);
    menuBar()->addMenu(lessonsMenu);
    connect(lessonsMenu, &LessonsMenu::lessonChosen, this, &MainWindow::startLesson);
}

void MainWindow::buildChartSwitches()
{
    // The chart switches a teacher flips most, also beside the charts.
    QComboBox* axisCombo = xAxis_->makeCombo();
    chartSwitches_ = new QWidget;
    auto* switchesLayout = new QHBoxLayout(chartSwitches_);
    switchesLayout->setContentsMargins(0, 0, 0, 0);
    switchesLayout->addStretch();
    switchesLayout->addWidget(axisCombo);
    switchesLayout->addWidget(
            buttonFor(smoothLossAction_, tr("Smooth loss"), QStringLiteral("smoothLossButton")));
    switchesLayout->addWidget(
            buttonFor(logLossAction_, vocabulary::logScale(), QStringLiteral("logLossButton")));
}

void MainWindow::loadHistory()
{
    if (!history_)
        return;
    const QStringList checked = QSettings().value(kCheckedRunsKey).toStringList();
    std::vector<std::string> skipped;
    try {
        // Back on the charts as they were when the window closed.
        std::unordered_set<std::string> checkedIds;
        for (const QString& id : checked)
            checkedIds.insert(id.toStdString());
        const ChartBoard::LegendHold hold(*charts_);
        runsModel_->upsert(history_->runs(&skipped), true, checkedIds);
    } catch (const dp::Error& error) {
        const QString problem = tr("The history could not be read: %1").arg(QString::fromUtf8(error.what()));
        appendLog(problem);
        runsPanel_->showHistoryProblem(problem);
        return;
    }
    // The card of the comparison on the charts when the window closed.
    if (const std::string group = runsModel_->latestCheckedComparisonGroup(); !group.empty())
        showComparisonSummary(group);
    if (skipped.empty())
        return;
    QStringList problems;
    for (const std::string& line : skipped) {
        problems << QString::fromStdString(line);
        appendLog(tr("history: %1").arg(problems.back()));
    }
    // The first few in the window, where the runs are missing; all in the log.
    constexpr int kProblemsShown = 3;
    runsPanel_->showHistoryProblem(
            tr("%1 of the history left out: %2%3")
                    .arg(vocabulary::runs(int(problems.size())))
                    .arg(problems.mid(0, kProblemsShown).join(QStringLiteral("; ")),
                         problems.size() > kProblemsShown ? tr("; the others in the Log tab")
                                                          : QString()));
}

void MainWindow::followHistory()
{
    if (!history_)
        return;
    std::vector<dp::RunRecord> changed;
    try {
        changed = history_->changedRuns();
    } catch (const dp::Error&) {
        return;  // locked or unreadable for now: the next look, or loadHistory's message, tells
    }
    for (const dp::RunRecord& record : changed) {
        // This window's own runs: it shows them as it trains them.
        const int row = runsModel_->rowOf(record.id);
        if (row >= 0 && !runsModel_->isPast(row))
            continue;
        runsModel_->upsert(record, true);
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

void MainWindow::setComparisonRepeats(int repeats)
{
    configPanel_->setComparisonRepeatsField(repeats);
}

bool MainWindow::isRunning() const
{
    return runs_->isRunning() || !runs_->queue()->isEmpty();
}

QString MainWindow::statusText() const
{
    return statusLabel_->text();
}

void MainWindow::startRun()
{
    if (!configPanel_->isValid()) {
        showSettingsProblem();  // Ctrl+R and --start say why nothing starts
        return;
    }
    const bool queued = runs_->isRunning();
    runs_->enqueue(withRetuneRequest(withOneIdPerDevice(configPanel_->config())));
    retuneAction_->setChecked(false);  // a request for one run
    if (queued)
        showStatus(tr("Queued: it starts when the current run ends"));
}

dp::TrainConfig MainWindow::withOneIdPerDevice(dp::TrainConfig config)
{
    // "cpu:0x2" is one entry and two devices: the record lists each
    // ("cpu:0#0", "cpu:0#1"), as a comparison's runs do, so that the runs
    // table, the labels and speedups count replicas (it said "1× cpu").
    std::vector<std::string> ids;
    for (const dp::DeviceInfo& device : dp::select_devices(config.devices))
        ids.push_back(device.id);
    config.devices = std::move(ids);
    return config;
}

dp::TrainConfig MainWindow::withRetuneRequest(dp::TrainConfig config) const
{
    config.retune = retuneAction_->isChecked();
    return config;
}

void MainWindow::startComparison()
{
    if (!configPanel_->isValid()) {
        showSettingsProblem();
        return;
    }
    if (configPanel_->checkedDeviceCount() < 2) {
        showStatus(tr("Cannot compare: Compare 1 vs N needs 2 or more devices checked"), true);
        return;
    }
    if (!timeEstimates_->confirmComparison(confirm_))
        return;
    const dp::TrainConfig base = configPanel_->config();
    // Devices as the engine counts them: "cuda:0x2" is one entry, two replicas.
    const int devices = configPanel_->checkedDeviceCount();
    try {
        // Where the 1-device run leaves its parameters after each epoch for
        // the N-device run's drift; kept while the window is open.
        std::unique_ptr<QTemporaryDir> snapshots = newScratchFolder();
        const std::vector<dp::TrainConfig> configs =
            dp::comparison_configs(base, {1, devices}, configPanel_->scalesWithDeviceCount(),
                                   snapshots->isValid() ? snapshots->path().toStdString() : "");
        comparisonSnapshots_.push_back(std::move(snapshots));
        for (const dp::TrainConfig& config : configs)
            dp::validate(config);
        // Repeats alternate the counts (1, N, 1, N, ...) within one group:
        // load that drifts hits each alike, and the runs table pairs each
        // N-device run with the 1-device run before it.
        const int repeats = configPanel_->comparisonRepeats();
        const std::string group = dp::new_comparison_group();
        for (int repeat = 0; repeat < repeats; ++repeat)
            for (const dp::TrainConfig& config : configs)
                runs_->enqueue(repeat == 0 ? withRetuneRequest(config) : config, group);
        retuneAction_->setChecked(false);
        appendLog(tr("— compare 1 vs %1 devices%2%3")
                      .arg(devices)
                      .arg(configPanel_->scalesWithDeviceCount()
                               ? tr(", batch and learning rate scaled with the device count")
                               : QString())
                      .arg(repeats > 1 ? tr(", %1 repeats").arg(repeats) : QString()));
    } catch (const dp::Error& error) {
        showStatus(tr("Cannot compare: %1").arg(engineMessage(error.what())), true);
    }
}

bool MainWindow::startLesson(const QString& name)
{
    if (const QString problem = lessons_->start(name); !problem.isEmpty()) {
        showStatus(tr("Cannot start the lesson: %1").arg(problem), true);
        return false;
    }
    summaryCard_->hide();  // the last comparison's: the lesson's own follow
    appendLog(tr("— lesson: %1").arg(lessonBanner_->title()));
    return true;
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

void MainWindow::closeAfterRun()
{
    if (!isRunning()) {
        close();
        return;
    }
    closeAfterRun_ = true;
    stopRun();
    showStatus(tr("Stopping after the current batch, then quitting…"));
}

void MainWindow::updateControls()
{
    const bool running = runs_->isRunning();
    const bool valid = configPanel_->isValid();
    startButton_->setEnabled(valid);
    startButton_->setText(running ? tr("Queue next") : tr("Start"));
    compareButton_->setEnabled(valid && configPanel_->checkedDeviceCount() >= 2);
    compareButton_->setText(timeEstimates_->compareButtonText());
    compareButton_->setToolTip(timeEstimates_->compareToolTip());
    stopButton_->setEnabled(running && !stopRequested_);
    const dp::RunRecord* current = runs_->currentRun();
    runsPanel_->setBusyRun(current ? current->id : std::string());
}

void MainWindow::showSettingsProblem()
{
    if (!configPanel_->isValid())
        showStatus((runs_->isRunning() ? tr("Cannot queue: %1") : tr("Cannot start: %1"))
                       .arg(configPanel_->validationError()),
                   true);
}

void MainWindow::onRunStarted(const dp::RunRecord& record)
{
    stopRequested_ = false;
    runsModel_->upsert(record);
    saveCheckedRuns();
    const int row = runsModel_->rowOf(record.id);
    const QColor color = runsModel_->color(row);
    charts_->startRun(runsModel_->labelledRecord(row), color);
    classroomPage_->startRun(runsModel_->labelledRecord(row), color);

    const QString label = runsModel_->displayLabel(row);
    appendLog(QStringLiteral("— %1, %2 epochs").arg(label).arg(record.config.epochs));
    batchProgressBar_->setRange(0, 0);  // busy until the first batch reports
    batchProgressBar_->setFormat(tr("loading data"));
    progress_.start(record.config.epochs);
    runningLabel_ = label;
    showStatus(tr("Starting %1: loading data and preparing the devices…").arg(label));
    updateControls();
}

void MainWindow::onRunUpdated(const dp::RunRecord& record)
{
    runsModel_->upsert(record);
    const int row = runsModel_->rowOf(record.id);
    if (runsModel_->isChecked(row))
        charts_->updateRun(runsModel_->labelledRecord(row), runsModel_->color(row));
    const dp::EpochMetrics& metrics = record.epochs.back();
    // Same line as dp-train prints, so GUI and CLI logs compare directly.
    appendLog(QString::fromStdString(dp::epoch_line(metrics, record.config.epochs)));
    // A pending stop keeps its "Stopping…" status until the run ends.
    if (!stopRequested_)
        showStatus(tr("epoch %1/%2 · test accuracy %3 · %4")
                       .arg(metrics.epoch)
                       .arg(record.config.epochs)
                       .arg(vocabulary::accuracy(metrics.test_acc))
                       .arg(vocabulary::secondsPerEpoch(metrics.seconds)));
    emit epochPlotted(metrics.epoch);
}

void MainWindow::onRunEnded(const dp::RunRecord& record, const QString& message)
{
    runsModel_->upsert(record);
    const int epochsDone = int(record.epochs.size());
    // A run that ended before its first epoch has no line to show: off the
    // charts and their legends (its row keeps the reason).
    if (epochsDone == 0)
        runsModel_->setChecked(runsModel_->rowOf(record.id), false);
    charts_->refreshNow();
    if (record.status == dp::RunStatus::failed) {
        appendLog(tr("error: %1").arg(message));
        showIdleProgress(tr("failed"));
        showStatus(tr("Error: %1").arg(message), true);
    } else if (record.status == dp::RunStatus::stopped) {
        logSummaryOnce(message, epochsDone);
        showIdleProgress(tr("stopped"));
        showStatus(epochsDone == 0 ? tr("Stopped before the first epoch ended")
                                   : tr("Stopped after epoch %1/%2 · %3")
                                         .arg(epochsDone)
                                         .arg(record.config.epochs)
                                         .arg(message));
    } else {
        logSummaryOnce(message, epochsDone);
        showIdleProgress(tr("finished"));
        showStatus(tr("Finished · %1").arg(message));
    }
    // The queue still holds the runs after this one: none of its group left
    // means the comparison is complete.
    if (!record.comparison_group.empty() && !runs_->queue()->holdsGroup(record.comparison_group))
        showComparisonSummary(record.comparison_group);
    if (!runs_->isRunning())
        stopRequested_ = false;
    updateControls();
    emit runEnded(record.status == dp::RunStatus::failed ? message : QString());
    if (closeAfterRun_ && !isRunning())
        QMetaObject::invokeMethod(this, &QWidget::close, Qt::QueuedConnection);
}

void MainWindow::showComparisonSummary(const std::string& group)
{
    std::vector<dp::RunRecord> runs;
    for (int row = 0; row < runsModel_->rowCount(); ++row)
        if (runsModel_->record(row).comparison_group == group)
            runs.push_back(runsModel_->record(row));
    summaryCard_->showComparison(runs, compareRuns(runs, runsModel_->targetAccuracy()));
}

void MainWindow::saveEditedRun(const dp::RunRecord& record, const QString& failure)
{
    try {
        if (history_ && !runs_->isRunningRun(record.id))
            history_->save(record);
    } catch (const dp::Error& error) {
        showStatus(failure.arg(QString::fromUtf8(error.what())), true);
    }
}

void MainWindow::renameRun(const dp::RunRecord& record)
{
    runs_->renameCurrent(record.id, record.name);  // the run in flight keeps writing it
    saveEditedRun(record, tr("Could not rename: %1"));
    // Legends follow: every checked run is redrawn under its (maybe changed) label.
    for (const dp::RunRecord& checked : runsModel_->checkedRecords()) {
        showRunOnCharts(checked, false);
        showRunOnCharts(checked, true);
    }
}

void MainWindow::saveCheckedRuns() const
{
    QStringList ids;
    for (const dp::RunRecord& record : runsModel_->checkedRecords())
        ids << QString::fromStdString(record.id);
    QSettings().setValue(kCheckedRunsKey, ids);
}

void MainWindow::showRunOnCharts(const dp::RunRecord& record, bool shown)
{
    const int row = runsModel_->rowOf(record.id);
    charts_->setRunVisible(runsModel_->labelledRecord(row), runsModel_->color(row), shown);
}

void MainWindow::updateSpeedupChart()
{
    // Each N-device run in its own colour; a repeated comparison once, at its
    // median with its range, in the colour and name of its last repeat.
    std::vector<SpeedupChart::Measurement> measurements;
    for (int row = 0; row < runsModel_->rowCount(); ++row) {
        const std::optional<RunComparison> comparison = runsModel_->comparison(row);
        const dp::RunRecord& record = runsModel_->record(row);
        if (!comparison || !comparison->speedup || !comparison->baseline || record.device_count() < 2)
            continue;
        SpeedupChart::Measurement measurement{QString::fromStdString(record.id),
                                              runsModel_->displayLabel(row),
                                              runsModel_->color(row),
                                              record.device_count(),
                                              *comparison->speedup,
                                              0,
                                              0,
                                              comparison->ceiling.value_or(0)};
        if (const std::optional<dp::RepeatedSpeedup>& repeated = comparison->repeated) {
            measurement.key = QStringLiteral("%1/%2").arg(QString::fromStdString(record.comparison_group))
                                  .arg(record.device_count());
            measurement.name = tr("%1 (median of %2 repeats)").arg(measurement.name).arg(repeated->repeats);
            measurement.speedup = repeated->median;
            measurement.min = repeated->min;
            measurement.max = repeated->max;
            const auto same = std::find_if(measurements.begin(), measurements.end(),
                                           [&](const auto& m) { return m.key == measurement.key; });
            if (same != measurements.end()) {
                *same = measurement;  // the later repeat names it
                continue;
            }
        }
        measurements.push_back(measurement);
    }
    charts_->setSpeedupMeasurements(std::move(measurements));

    // The waterfall shows one comparison: the newest checked N-device run
    // whose baseline kept step timings too (past runs' records keep them).
    for (int row = runsModel_->rowCount() - 1; row >= 0; --row) {
        const std::optional<RunComparison> comparison = runsModel_->comparison(row);
        if (comparison && comparison->gap) {
            charts_->setSpeedupGap(comparison->gap, runsModel_->displayLabel(row),
                                   runsModel_->color(row));
            return;
        }
    }
    charts_->setSpeedupGap(std::nullopt);
}

// The Scaling tab predicts from the checked runs and marks them.
void MainWindow::updateScalingPrediction()
{
    std::vector<std::pair<dp::RunRecord, QColor>> runs;
    for (const dp::RunRecord& record : runsModel_->checkedRecords())
        runs.emplace_back(record, runsModel_->color(runsModel_->rowOf(record.id)));
    scalingPage_->setRuns(runs);
}

void MainWindow::deleteRuns(const std::vector<std::string>& ids)
{
    if (ids.empty()
        || !confirm_(tr("Delete %1 from the history? Their settings and epochs are "
                        "removed for good.").arg(vocabulary::runs(int(ids.size())))))
        return;
    try {
        if (history_)
            history_->remove(ids);
    } catch (const dp::Error& error) {
        showStatus(tr("Could not delete: %1").arg(QString::fromUtf8(error.what())), true);
        return;
    }
    {
        const ChartBoard::LegendHold hold(*charts_);
        for (const std::string& id : ids)
            charts_->removeRun(id);
    }
    runsModel_->remove(ids);
    saveCheckedRuns();
    showStatus(tr("Deleted %1 from the history").arg(vocabulary::runs(int(ids.size()))));
}

bool MainWindow::importRunRecord(const QString& path, QString* problem)
{
    return importRunRecords({path}, problem);
}

bool MainWindow::importRunRecords(const QStringList& paths, QString* problem)
{
    try {
        std::vector<dp::RunRecord> records;
        QStringList importedFrom;
        std::unordered_set<std::string> ids;
        QStringList already;
        for (const QString& path : paths) {
            dp::RunRecord record = dp::read_run_record(QFile::encodeName(path).toStdString());
            // The same run twice would be one row updated, said as a second import;
            // but a run the history holds as it was before its end (the end could
            // not be written: a full disk) takes the record saved aside at its end.
            const int row = runsModel_->rowOf(record.id);
            const bool completesInterrupted =
                row >= 0 && runsModel_->isPast(row) && runsModel_->record(row).status == dp::RunStatus::running;
            if ((row >= 0 && !completesInterrupted) || !ids.insert(record.id).second) {
                already << QString::fromStdString(record.label());
                continue;
            }
            importedFrom << path;
            records.push_back(std::move(record));
        }
        if (history_)
            history_->save(records);
        const ChartBoard::LegendHold hold(*charts_);
        // Many at once are drawn up to the legend's readable count, the newest
        // files last; the others are listed for the user to check.
        std::unordered_set<std::string> drawn;
        for (std::size_t i = records.size() > kMostRunsDrawnOnImport ? records.size() - kMostRunsDrawnOnImport : 0;
             i < records.size(); ++i)
            drawn.insert(records[i].id);
        runsModel_->upsert(records, false, drawn);
        for (std::size_t i = 0; i < records.size(); ++i) {
            showRunOnCharts(records[i], runsModel_->isChecked(runsModel_->rowOf(records[i].id)));
            appendLog(tr("imported %1 from %2").arg(QString::fromStdString(records[i].id), importedFrom[qsizetype(i)]));
        }
        if (records.size() == 1)
            showStatus(tr("Imported %1").arg(QString::fromStdString(records.front().label())));
        else if (records.size() > drawn.size())
            showStatus(tr("Imported %1; the last %2 are on the charts, check others in the runs table to draw them")
                           .arg(vocabulary::runs(int(records.size())))
                           .arg(drawn.size()));
        else if (!records.empty())
            showStatus(tr("Imported %1").arg(vocabulary::runs(int(records.size()))));
        else if (!already.isEmpty())
            showStatus(tr("Already in the history: %1").arg(already.join(QStringLiteral(", "))));
        return true;
    } catch (...) {
        // Anything at all (a full disk under the history, no memory left): a
        // line in the window, never an exception out of the menu's slot.
        const QString reason = QString::fromStdString(dp::current_exception_message());
        showStatus(tr("Import failed: %1").arg(reason), true);
        if (problem)
            *problem = reason;
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
    // The step view and the Scaling chart too, where they show something.
    if (failed.isEmpty() && !classroomPage_->batchSplitView()->lastShards().empty())
        failed = exportWidget(*classroomPage_->batchSplitView(), dir, QStringLiteral("batch_split"));
    if (failed.isEmpty() && scalingPage_->chart()->predictedLine()->count() > 0)
        failed = exportWidget(*scalingPage_->chart(), dir, QStringLiteral("scaling_prediction"));
    if (!failed.isEmpty()) {
        showStatus(tr("Export failed: cannot write %1").arg(failed), true);
        return false;
    }
    const std::vector<dp::RunRecord> runs = runsModel_->checkedRecords();
    const double target = runsModel_->targetAccuracy();
    const std::vector<std::pair<QString, QByteArray>> tables = {
        {QStringLiteral("runs.csv"), runsToCsv(runs, target, runsModel_->chosenBaseline())},
        {QStringLiteral("runs.json"), runsToJson(runs, target, runsModel_->chosenBaseline())},
        {QStringLiteral("epochs.csv"), epochsToCsv(runs)},
    };
    for (const auto& [name, contents] : tables) {
        if (!writeFile(dir.filePath(name), contents)) {
            showStatus(tr("Export failed: cannot write %1").arg(dir.filePath(name)), true);
            return false;
        }
    }
    // The runs' step traces, where Run > Write step traces wrote them.
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const QString trace = QString::fromStdString(runs[i].config.trace_path);
        const QString copy = dir.filePath(QStringLiteral("trace_run%1.json").arg(i + 1));
        if (trace.isEmpty() || !QFile::exists(trace))
            continue;
        QFile::remove(copy);
        if (!QFile::copy(trace, copy)) {
            showStatus(tr("Export failed: cannot write %1").arg(copy), true);
            return false;
        }
    }
    showStatus(tr("Exported the charts and %1 to %2").arg(vocabulary::runs(int(runs.size())), folder));
    return true;
}

void MainWindow::setPresenterMode(bool on)
{
    if (presenterAction_->isChecked() != on) {
        presenterAction_->setChecked(on);  // comes back here through toggled
        return;
    }
    if (on)
        beforePresenter_ = {windowState(), settingsSplitter_->sizes(), rightSplitter_->sizes(),
                            summaryCard_->isCollapsed()};
    // The charts and classroom views get the whole window, or the whole
    // screen for a window already on it (one not shown yet is sized by
    // whoever shows it: --presenter, the tests).
    configScroll_->setVisible(!on && settingsPanelAction_->isChecked());
    bottomTabs_->setVisible(!on);
    QFont font = QApplication::font();
    if (on)
        font.setPointSizeF(font.pointSizeF() * kPresenterFontScale);
    setFont(font);  // the window, so that no widget of it keeps the small font
    // A widget with a style sheet takes no font from its parent.
    for (QWidget* styled : {static_cast<QWidget*>(presenterHints_), static_cast<QWidget*>(batchProgressBar_)})
        styled->setFont(font);
    menuBar()->setFont(font);
    charts_->setFontScale(on ? kPresenterFontScale : 1.0);
    scaleChartFonts(*scalingPage_->chart()->chart(), font);
    showPresenterHints();
    presenterAction_->setShortcuts(presenterShortcuts(on));
    // The card's verdict line leaves a projector's short screen to the
    // charts (its ▸ opens the rest); the grid gives way to the focus view
    // where it cannot keep a chart a third of the screen tall.
    summaryCard_->setCollapsed(on || beforePresenter_.cardCollapsed);
    showLeastPlotHeight();
    if (on) {
        if (isVisible())
            showFullScreen();
    } else if (isVisible() && windowState() != beforePresenter_.windowState) {
        // The window gets its size back with its state, then the splitters
        // theirs (resizeEvent), as the user left them.
        splittersToRestore_ = true;
        setWindowState(beforePresenter_.windowState);
    } else {
        restoreSplitters();
    }
}

// The settings panel's hints ("too few steps") stay in view when presenter
// mode hides the panel: a banner over the charts.
void MainWindow::showPresenterHints()
{
    const QStringList hints = configPanel_->hints();
    presenterHints_->setText(hints.join(QLatin1Char('\n')));
    presenterHints_->setVisible(presenterAction_->isChecked() && !hints.isEmpty());
}

void MainWindow::restoreSplitters()
{
    splittersToRestore_ = false;
    if (!beforePresenter_.settingsSizes.isEmpty())
        settingsSplitter_->setSizes(beforePresenter_.settingsSizes);
    if (!beforePresenter_.viewSizes.isEmpty())
        rightSplitter_->setSizes(beforePresenter_.viewSizes);
}

void MainWindow::resizeEvent(QResizeEvent* event)
{
    QMainWindow::resizeEvent(event);
    showLeastPlotHeight();
    if (splittersToRestore_ && !isFullScreen())
        restoreSplitters();
}

void MainWindow::showLeastPlotHeight()
{
    // A third of the window, which presenter mode makes the screen; else
    // kLeastPlotHeight: the focus view rather than plots too short to read.
    charts_->setLeastPlotHeight(presenterAction_->isChecked() ? height() / 3 : kLeastPlotHeight);
}

void MainWindow::setXAxisMode(XAxisMode mode)
{
    charts_->setXAxisMode(mode);
    xAxis_->setMode(mode);
}

void MainWindow::showClusterCommand()
{
    ClusterCommandDialog dialog(configPanel_->config(), this);
    dialog.exec();
}

void MainWindow::chooseImportFile()
{
    const QStringList paths = QFileDialog::getOpenFileNames(this, tr("Import run records"), QString(),
                                                            tr("Run records (*.json);;All files (*)"));
    if (!paths.isEmpty())
        importRunRecords(paths);
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
    const bool firstBatch = progress_.batchesDone() == 0;
    progress_.update(epoch, batch, batchesPerEpoch, loss);
    // The bar spans the whole run; its text says where in it we are.
    batchProgressBar_->setRange(0, int(std::min<qint64>(progress_.batchesPlanned(), INT_MAX)));
    batchProgressBar_->setValue(int(std::min<qint64>(progress_.batchesDone(), INT_MAX)));
    progress_.setQueue(timeEstimates_->queueTime(*runs_->queue()));
    batchProgressBar_->setFormat(progress_.text());
    if (firstBatch && !stopRequested_)
        showStatus(tr("Training %1").arg(runningLabel_));
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

void MainWindow::logSummaryOnce(const QString& summary, int epochsDone)
{
    // The engine logs its summary line itself once an epoch has finished.
    if (epochsDone == 0 && !summary.isEmpty())
        appendLog(summary);
}

void MainWindow::saveSettings()
{
    QSettings settings;
    // A lesson's settings are borrowed: the user's stay remembered (issue 42).
    if (!lessons_ || !lessons_->holdsSettings())
        storeRunConfig(settings, configPanel_->config());
    storeDataFolders(settings, configPanel_->dataFolders());
    settings.setValue(kScaleKey, configPanel_->scalesWithDeviceCount());
    settings.setValue(kRepeatsKey, configPanel_->comparisonRepeatsField());
    XAxisChoice::remember(settings, xAxis_->mode());
    settings.setValue(kSmoothLossKey, smoothLossAction_->isChecked());
    settings.setValue(kLogLossKey, logLossAction_->isChecked());
    settings.setValue(kWriteTracesKey, writeTracesAction_->isChecked());
}
