#include "workbench_menus.h"

#include <QAction>
#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QKeySequence>
#include <QMenuBar>
#include <QPushButton>

#include "chart_board.h"
#include "help_menu.h"
#include "lessons_menu.h"
#include "main_window.h"
#include "presenter_mode.h"
#include "run_controls.h"
#include "run_manager.h"
#include "study_window.h"
#include "vocabulary.h"
#include "x_axis_choice.h"

namespace {

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

}  // namespace

WorkbenchMenus::WorkbenchMenus(MainWindow* window, const Parts& parts)
    : QObject(window),
      window_(window),
      runs_(parts.runs),
      runControls_(parts.runControls),
      presenterMode_(parts.presenterMode),
      charts_(parts.charts)
{
    buildFileMenu();
    buildRunMenu();
    buildViewMenu();
    buildLessonsMenu();
    addHelpMenu(window_);
    buildChartSwitches();
}

void WorkbenchMenus::buildLessonsMenu()
{
    auto* lessonsMenu = new LessonsMenu(window_);
    window_->menuBar()->addMenu(lessonsMenu);
    connect(lessonsMenu, &LessonsMenu::lessonChosen, window_, &MainWindow::startLesson);
}

void WorkbenchMenus::buildFileMenu()
{
    QMenu* fileMenu = window_->menuBar()->addMenu(tr("&File"));
    QAction* importAction = fileMenu->addAction(tr("&Import run record…"), this,
                                                &WorkbenchMenus::chooseImportFile);
    importAction->setObjectName(QStringLiteral("importAction"));
    importAction->setToolTip(tr("Add a run record JSON (dp-train --record, a cluster run's run.json)"));
    fileMenu->addAction(tr("&Open study…"), this, [this] { chooseStudyFile(window_); })
        ->setObjectName(QStringLiteral("openStudyAction"));  // dp-train --sweep's study file
    QAction* exportAction =
        fileMenu->addAction(tr("&Export charts and tables…"), this, &WorkbenchMenus::chooseExportFolder);
    exportAction->setObjectName(QStringLiteral("exportAction"));
    exportAction->setShortcut(QKeySequence(tr("Ctrl+E")));
    fileMenu->addSeparator();
    fileMenu->addAction(tr("&Quit"), QKeySequence::Quit, window_, &QWidget::close);
}

void WorkbenchMenus::buildRunMenu()
{
    QMenu* runMenu = window_->menuBar()->addMenu(tr("&Run"));
    runMenu->addAction(tr("&Start or queue"), QKeySequence(tr("Ctrl+R")), window_,
                       &MainWindow::startRun);
    runMenu->addAction(tr("&Compare 1 vs N"), window_, &MainWindow::startComparison);
    runMenu->addAction(tr("S&weep…"), window_, &MainWindow::chooseSweep);
    runMenu->addAction(tr("S&top"), QKeySequence(tr("Ctrl+.")), window_, &MainWindow::stopRun);
    runMenu->addSeparator();
    runMenu->addAction(runControls_->retuneAction());
    QAction* clusterAction =
        runMenu->addAction(tr("Cl&uster command…"), window_, &MainWindow::showClusterCommand);
    clusterAction->setObjectName(QStringLiteral("clusterCommandAction"));
    runMenu->addSeparator();
    writeTracesAction_ = runMenu->addAction(tr("Write step &traces (Chrome JSON)"));
    writeTracesAction_->setObjectName(QStringLiteral("writeTracesAction"));
    writeTracesAction_->setCheckable(true);
    writeTracesAction_->setToolTip(
        tr("Each run started while this is on writes its step phases to %1 as it trains, for "
           "ui.perfetto.dev or chrome://tracing; File ▸ Export copies them. Off: no file.")
            .arg(MainWindow::stepTraceFolder()));
    connect(writeTracesAction_, &QAction::toggled, this, [this](bool on) {
        runs_->setTraceFolder(on ? MainWindow::stepTraceFolder() : QString());
        emit switchesChanged();
    });
}

void WorkbenchMenus::buildViewMenu()
{
    QMenu* viewMenu = window_->menuBar()->addMenu(tr("&View"));
    viewMenu->addAction(presenterMode_->presenterAction());
    xAxis_ = new XAxisChoice(this);
    viewMenu->addActions(xAxis_->actions());
    connect(xAxis_, &XAxisChoice::modeChanged, this, [this](XAxisMode mode) {
        window_->setXAxisMode(mode);
        emit switchesChanged();
    });
    smoothLossAction_ = viewMenu->addAction(tr("Smooth the &loss (moving average)"));
    smoothLossAction_->setObjectName(QStringLiteral("smoothLossAction"));
    smoothLossAction_->setCheckable(true);
    connect(smoothLossAction_, &QAction::toggled, this, [this](bool smoothed) {
        charts_->setSmoothedLoss(smoothed);
        emit switchesChanged();
    });
    logLossAction_ = viewMenu->addAction(tr("L&og scale for the loss"));
    logLossAction_->setObjectName(QStringLiteral("logLossAction"));
    logLossAction_->setCheckable(true);
    logLossAction_->setToolTip(tr("Loss on a log scale: late, small improvements stay visible"));
    connect(logLossAction_, &QAction::toggled, this, [this](bool log) {
        charts_->setLogScaleLoss(log);
        emit switchesChanged();
    });
    viewMenu->addAction(presenterMode_->settingsPanelAction());
    QAction* resetZoomAction = viewMenu->addAction(tr("&Reset chart zoom"), QKeySequence(tr("Ctrl+0")),
                                                   charts_, &ChartBoard::resetZoom);
    resetZoomAction->setObjectName(QStringLiteral("resetZoomAction"));
}

void WorkbenchMenus::buildChartSwitches()
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

void WorkbenchMenus::chooseImportFile()
{
    const QStringList paths = QFileDialog::getOpenFileNames(window_, tr("Import run records"), QString(),
                                                            tr("Run records (*.json);;All files (*)"));
    if (!paths.isEmpty())
        window_->importRunRecords(paths);
}

void WorkbenchMenus::chooseExportFolder()
{
    const QString folder =
        QFileDialog::getExistingDirectory(window_, tr("Export charts and tables to folder"));
    if (!folder.isEmpty())
        window_->exportTo(folder);
}
