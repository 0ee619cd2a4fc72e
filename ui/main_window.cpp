#include "main_window.h"
#include "x_axis_choice.h"


#include <QAction>
#include <QCloseEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QListView>
#include <QMessageBox>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "cluster_command_dialog.h"
#include "comparison_summary_card.h"
#include "comparison_views.h"
#include "core/error.h"
#include "io/workbench_files.h"
#include "chart_board.h"
#include "classroom_page.h"
#include "seed_group_charts.h"
#include "empty_chart_guide.h"
#include "scaling_prediction_page.h"
#include "loss_chart.h"
#include "presenter_mode.h"
#include "folder_export.h"
#include "history_keeper.h"
#include "lesson_banner.h"
#include "lesson_starter.h"
#include "run_time_estimates.h"
#include "run_config_panel.h"
#include "run_controls.h"
#include "run_history.h"
#include "scratch_folders.h"
#include "run_manager.h"
#include "run_settings.h"
#include "runs_panel.h"
#include "runs_panel_fit.h"
#include "runs_table_model.h"
#include "status_line.h"
#include "sweep_starter.h"
#include "training_worker.h"
#include "workbench_menus.h"

namespace {

const QString kScaleKey = QStringLiteral("compare/scale_batch_and_lr");
const QString kRepeatsKey = QStringLiteral("compare/repeats");
const QString kSmoothLossKey = QStringLiteral("view/smooth_loss");
const QString kGeometryKey = QStringLiteral("window/geometry");
const QString kSplitterKey = QStringLiteral("window/splitter");
const QString kLogLossKey = QStringLiteral("view/log_loss");
const QString kWriteTracesKey = QStringLiteral("run/write_step_traces");

// A page that takes a scroll area's height and scrolls only below its own
// minimum: QScrollArea gives a height-for-width page (wrapped text in it) its
// preferred height for the width, the charts at their tallest, mostly out of view.
class FillingPage : public QWidget {
public:
    using QWidget::QWidget;
    int heightForWidth(int width) const override { return layout()->minimumHeightForWidth(width); }
};

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
      status_(new StatusLine(this))
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
    runControls_ = new RunControls({configPanel_, runs_.get(), runsModel_, runsPanel_, charts_, classroomPage_, status_,
                                    [this](const QString& question) { return confirm_(question); }},
                                   this);
    presenterMode_ = new PresenterMode({this, configScroll_, bottomTabs_, settingsSplitter_, rightSplitter_, charts_,
                                        scalingPage_, summaryCard_, configPanel_, runControls_->progressBar()},
                                       this);

    nameWidgets();
    buildConfigScroll();
    buildMenus();
    buildLayout();

    connectControls();
    connectRunSignals();
    connectWorker();

    restoreSettings();
    if (!historyProblem.isEmpty()) {
        runsPanel_->showHistoryProblem(historyProblem);
        status_->appendLog(historyProblem);
    }
    historyKeeper_->loadAndFollow();
    runControls_->updateControls();
    status_->show(tr("Ready"));
    runControls_->showSettingsProblem();
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
    cardAndChartsLayout->addWidget(presenterMode_->hints());
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
    chartsLayout->addWidget(menus_->chartSwitches());
    chartsLayout->addWidget(chartsScroll, 1);

    viewTabs_->addTab(chartsPage, tr("Charts"));
    viewTabs_->addTab(classroomPage_, tr("Classroom"));
    viewTabs_->addTab(scalingPage_, tr("Scaling"));
}

QWidget* MainWindow::buildViewColumn()
{
    auto* controlsRow = new QHBoxLayout;
    controlsRow->addWidget(runControls_->startButton());
    controlsRow->addWidget(runControls_->compareButton());
    controlsRow->addWidget(runControls_->stopButton());
    controlsRow->addWidget(runControls_->progressBar(), 1);

    auto* viewColumn = new QWidget;
    auto* viewLayout = new QVBoxLayout(viewColumn);
    viewLayout->setContentsMargins(0, 0, 0, 0);
    viewLayout->addWidget(viewTabs_, 1);
    viewLayout->addLayout(controlsRow);
    viewLayout->addWidget(status_->label());
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
    bottomTabs_->addTab(status_->logView(), tr("Log"));
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
    connect(runControls_->startButton(), &QPushButton::clicked, this, &MainWindow::startRun);
    connect(runControls_->compareButton(), &QPushButton::clicked, this, &MainWindow::startComparison);
    connect(runControls_->stopButton(), &QPushButton::clicked, this, &MainWindow::stopRun);
    connect(configPanel_, &RunConfigPanel::validityChanged, this, [this](bool valid) {
        runControls_->updateControls();
        if (valid)
            status_->show(runs_->isRunning() ? tr("Settings ready to queue") : tr("Ready"));
    });
    connect(configPanel_, &RunConfigPanel::configChanged, this, [this] {
        runControls_->updateControls();
        runControls_->showSettingsProblem();
        presenterMode_->showHints();
        saveSettings();
    });
}

void MainWindow::connectRunSignals()
{
    runControls_->followRuns();
    connect(runControls_, &RunControls::epochPlotted, this, &MainWindow::epochPlotted);
    connect(runControls_, &RunControls::runEnded, this, &MainWindow::runEnded);
    connect(runControls_, &RunControls::runEnded, this, [this] {
        if (closeAfterRun_ && !isRunning())
            QMetaObject::invokeMethod(this, &QWidget::close, Qt::QueuedConnection);
    });
    connect(runs_.get(), &RunManager::historyFailed, this, [this](const QString& message) {
        status_->appendLog(tr("history: %1").arg(message));
        status_->show(tr("Could not record the run: %1").arg(message), true);
    });
    connect(runs_.get(), &RunManager::traceFailed, this, [this](const QString& message) {
        status_->appendLog(tr("warning: %1").arg(message));
    });
    connect(runs_.get(), &RunManager::runNotKept, this,
            [this](const dp::RunRecord& record, const QString& asideFile, const QString& asideProblem) {
                const QString where = asideFile.isEmpty()
                    ? tr("nor saved elsewhere: %1").arg(asideProblem)
                    : tr("saved as %1; File ▸ Import adds it once the history can be written").arg(asideFile);
                runsModel_->setNotInHistory(record.id, tr("Not in the history: %1").arg(where));
                status_->appendLog(tr("Not in the history: %1").arg(where));
                status_->show(tr("%1 · not kept in the history: %2").arg(status_->text(), where),
                           true);
            });
    historyKeeper_ = new HistoryKeeper({history_.get(), runs_.get(), runsModel_, runsPanel_, charts_, status_,
                                        [this](const QString& question) { return confirm_(question); }},
                                       this);
    classroomPage_->followRuns(runsModel_);
    new SeedGroupCharts(runsModel_, charts_, this);  // grouped seeds as median and band
    // Compare's button says how long it takes, the progress bar the queue's time.
    timeEstimates_ = new RunTimeEstimates(configPanel_, runs_.get(), this);
    runControls_->estimateWith(timeEstimates_);
    // The accuracy chart says what to do while it is empty (timed by the same probe).
    new EmptyChartGuide(runsModel_, configPanel_, charts_->findChild<QChartView*>(QStringLiteral("accuracyChart")), this,
                        timeEstimates_->probe());
    folderExport_ = new FolderExport({charts_, classroomPage_, scalingPage_, runsModel_, status_}, this);
    comparisonViews_ = new ComparisonViews(runsModel_, charts_, scalingPage_, summaryCard_, this);
    // The card of the comparison on the charts when the window closed.
    connect(historyKeeper_, &HistoryKeeper::checkedComparisonLoaded, comparisonViews_,
            &ComparisonViews::showComparisonSummary);
    historyKeeper_->followEditsAndDeletes();
    connect(runControls_, &RunControls::runAdded, historyKeeper_, &HistoryKeeper::saveCheckedRuns);
    connect(runControls_, &RunControls::comparisonEnded, comparisonViews_, &ComparisonViews::showComparisonSummary);
    connect(runsModel_, &RunsTableModel::renameRefused, this, [this](const QString& why) { status_->show(why, true); });
}

void MainWindow::connectWorker()
{
    // The worker emits on its own thread; queued delivery runs these slots on
    // the GUI thread.
    const TrainingWorker* worker = runs_->worker();
    connect(worker, &TrainingWorker::logLine, status_, &StatusLine::appendLog, Qt::QueuedConnection);
    connect(worker, &TrainingWorker::batchProgress, runControls_, &RunControls::showBatchProgress,
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
    menus_->xAxis()->setMode(xAxisMode);
    menus_->smoothLossAction()->setChecked(smoothLoss);
    menus_->logLossAction()->setChecked(logLoss);
    menus_->writeTracesAction()->setChecked(writeTraces);
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
    return status_->text();
}

void MainWindow::startRun()
{
    runControls_->startRun();
}

void MainWindow::startComparison()
{
    runControls_->startComparison();
}

void MainWindow::chooseSweep()
{
    sweeps_->chooseSweep();
}

void MainWindow::stopRun()
{
    runControls_->stopRun();
}

bool MainWindow::startLesson(const QString& name)
{
    if (const QString problem = lessons_->start(name); !problem.isEmpty()) {
        status_->show(tr("Cannot start the lesson: %1").arg(problem), true);
        return false;
    }
    summaryCard_->hide();  // the last comparison's: the lesson's own follow
    status_->appendLog(tr("— lesson: %1").arg(lessonBanner_->title()));
    return true;
}

void MainWindow::closeAfterRun()
{
    if (!isRunning()) {
        close();
        return;
    }
    closeAfterRun_ = true;
    stopRun();
    status_->show(tr("Stopping after the current batch, then quitting…"));
}

bool MainWindow::importRunRecord(const QString& path, QString* problem)
{
    return importRunRecords({path}, problem);
}

bool MainWindow::importRunRecords(const QStringList& paths, QString* problem)
{
    return historyKeeper_->importRunRecords(paths, problem);
}

void MainWindow::followHistory()
{
    historyKeeper_->followHistory();
}

bool MainWindow::exportTo(const QString& folder)
{
    return folderExport_->exportTo(folder);
}

void MainWindow::setPresenterMode(bool on)
{
    presenterMode_->setPresenting(on);
}

void MainWindow::resizeEvent(QResizeEvent* event)
{
    QMainWindow::resizeEvent(event);
    presenterMode_->windowResized();
}

QString MainWindow::stepTraceFolder()
{
    return QString::fromStdString((dp::workbench_data_folder() / "traces").string());
}

void MainWindow::buildMenus()
{
    lessonBanner_ = new LessonBanner;
    lessons_ = new LessonStarter(configPanel_, runs_.get(), lessonBanner_, this);
    sweeps_ = new SweepStarter(configPanel_, runs_.get(), status_, this);
    sweeps_->setObjectName(QStringLiteral("sweepStarter"));
    menus_ = new WorkbenchMenus(this, {runs_.get(), runControls_, presenterMode_, charts_});
    connect(menus_, &WorkbenchMenus::switchesChanged, this, &MainWindow::saveSettings);
}

void MainWindow::setXAxisMode(XAxisMode mode)
{
    charts_->setXAxisMode(mode);
    menus_->xAxis()->setMode(mode);
}

void MainWindow::showClusterCommand()
{
    ClusterCommandDialog dialog(configPanel_->config(), this);
    dialog.exec();
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
    XAxisChoice::remember(settings, menus_->xAxis()->mode());
    settings.setValue(kSmoothLossKey, menus_->smoothLossAction()->isChecked());
    settings.setValue(kLogLossKey, menus_->logLossAction()->isChecked());
    settings.setValue(kWriteTracesKey, menus_->writeTracesAction()->isChecked());
}
