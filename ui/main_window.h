#pragma once

#include <QMainWindow>

#include <functional>
#include <memory>

#include "record/run_record.h"
#include "config/train_config.h"
#include "train/train_observer.h"
#include "x_axis_mode.h"

class ComparisonSummaryCard;
class ComparisonViews;
class FolderExport;
class HistoryKeeper;
class LessonBanner;
class LessonStarter;
class ChartBoard;
class ClassroomPage;
class PresenterMode;
class QScrollArea;
class QSplitter;
class ScalingPredictionPage;
class StatusLine;
class SweepStarter;
class QTabWidget;
class RunConfigPanel;
class RunControls;
class RunHistory;
class RunManager;
class RunsPanel;
class RunsTableModel;
class RunTimeEstimates;
class WorkbenchMenus;

// The workbench window: run settings on the left; the live charts and the
// classroom views beside them; run controls and status; the runs table, the
// queue and the engine log below. Training runs on a worker thread (see
// RunManager), so the window stays responsive throughout a run. Every run is
// recorded in the history database, which the table lists at launch.
// The window assembles rooms of one job each and lays out their widgets:
// RunControls (starting, comparing, stopping, the run in flight),
// HistoryKeeper (the history and imports), FolderExport, ComparisonViews,
// PresenterMode, WorkbenchMenus and the StatusLine they all report through.
class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    dp::TrainConfig runConfig() const;
    void setRunConfig(const dp::TrainConfig& config);
    // How Compare 1 vs N sizes the N-device run (dp::comparison_configs).
    void setComparisonScaling(bool scaleBatchAndLr);
    // How many times Compare 1 vs N runs its pair; 0: auto (RunConfigPanel::comparisonRepeats).
    void setComparisonRepeats(int repeats);
    // Whether a run is training or waiting in the queue.
    bool isRunning() const;
    // The status line under the charts: what the window is doing, or why
    // it cannot start a run.
    QString statusText() const;

    // Asks the user to confirm an action that loses something (deleting runs,
    // quitting during a run): true to go ahead. A modal question box unless
    // replaced (tests answer without one).
    using Confirmation = std::function<bool(const QString& question)>;
    void setConfirmation(Confirmation confirm) { confirm_ = std::move(confirm); }

    // Adds a run record JSON (a cluster run's) to the history and the table;
    // false, with the reason in the status line (and in `problem`, if
    // given), if it cannot be read or is not a run this workbench can show.
    bool importRunRecord(const QString& path, QString* problem = nullptr);
    // importRunRecord() of each file as one change (one history transaction,
    // one relabelling of the runs table): none is imported if one cannot be read.
    bool importRunRecords(const QStringList& paths, QString* problem = nullptr);
    // Reads what other programs changed in the history (dp-train training
    // beside the window: its epochs, its end, its process gone) into the runs
    // table; the window does so every few seconds.
    void followHistory();
    // Writes every chart as PNG and SVG, the checked runs as CSV and JSON,
    // their epochs as CSV and the step traces they wrote into `folder`;
    // false, with the reason in the status line, if a file cannot be written.
    bool exportTo(const QString& folder);
    // Where runs write their Chrome step traces while Run > Write step traces
    // is checked (off by default: no trace file): "traces" in the data folder.
    static QString stepTraceFolder();

public slots:
    // Starts a run with the panel's settings, or queues it behind the current one.
    void startRun();
    // Queues the panel's settings on 1 device and on the checked N.
    void startComparison();
    // Run ▸ Sweep…: asks for a grid over the panel's settings and queues it as one study.
    void chooseSweep();
    // Stops the run in flight within one batch and drops the queued ones.
    void stopRun();
    // Stops the run in flight as Stop does and closes the window once its
    // end is recorded; at once when idle. Quit during a run does this once
    // the user agrees, and so do SIGTERM, SIGINT and SIGHUP (app/workbench/main.cpp).
    void closeAfterRun();
    void setPresenterMode(bool on);
    void setXAxisMode(XAxisMode mode);
    void showClusterCommand();
    // Starts lesson `name` (ui/lessons/lesson_table.h): its settings in the
    // panel, its runs queued, what to look for above the charts. False, with
    // the reason in the status line, if it cannot.
    bool startLesson(const QString& name);

signals:
    // Emitted once the charts show the epoch's points.
    void epochPlotted(int epoch);
    // Emitted after the window shows how a run ended: finished, stopped or
    // failed; `failure` is a failed run's one-line message, else empty.
    void runEnded(const QString& failure);

protected:
    // Quitting during a run asks first; the window's size and splitters are remembered.
    void closeEvent(QCloseEvent* event) override;
    // Back from presenter mode's full screen, the splitters as they were.
    void resizeEvent(QResizeEvent* event) override;

private:
    // The menus, and the chart switches that mirror View's actions.
    void buildMenus();
    // Opens the history database; a message saying why not if it cannot.
    QString openHistory();
    void nameWidgets();
    void buildConfigScroll();
    // The settings beside the views, the runs table and log below them, and
    // the window's first size.
    void buildLayout();
    // 80% of a large screen, most of a small one, centred.
    void resizeToScreen();
    // Puts `content` in `area`, scrolled up and down only.
    void scrollVertically(QScrollArea* area, QWidget* content) const;
    // A vertical scroll area's width for content of `contentSize`.
    int scrolledWidthFor(QSize contentSize) const;
    void buildViewTabs();
    // The view tabs above the run controls and the status line.
    QWidget* buildViewColumn();
    void buildBottomTabs();
    void connectControls();
    void connectRunSignals();
    void connectWorker();
    // The last session's settings, view switches, size and splitter.
    void restoreSettings();
    void saveSettings();

    std::unique_ptr<RunHistory> history_;
    FolderExport* folderExport_ = nullptr;  // File ▸ Export
    HistoryKeeper* historyKeeper_ = nullptr;  // loads, follows, imports into, edits and deletes from history_
    RunsTableModel* runsModel_;
    RunConfigPanel* configPanel_;
    QScrollArea* configScroll_;
    ChartBoard* charts_;
    ComparisonSummaryCard* summaryCard_;  // above the charts when a comparison ends
    ComparisonViews* comparisonViews_ = nullptr;  // the speedup chart, the Scaling tab and the card
    LessonBanner* lessonBanner_ = nullptr;  // above the charts while a lesson's runs go
    LessonStarter* lessons_ = nullptr;
    SweepStarter* sweeps_ = nullptr;  // Run ▸ Sweep… and the windows following sweeps
    RunTimeEstimates* timeEstimates_ = nullptr;  // Compare's time, the queue's
    RunControls* runControls_ = nullptr;  // Start, Compare, Stop and the progress bar
    WorkbenchMenus* menus_ = nullptr;  // the menu bar, and the chart switches beside the charts
    PresenterMode* presenterMode_ = nullptr;  // View ▸ Presenter mode and Settings panel
    ClassroomPage* classroomPage_;
    ScalingPredictionPage* scalingPage_;
    QTabWidget* viewTabs_;
    QTabWidget* bottomTabs_;
    QSplitter* settingsSplitter_;  // the settings, then everything else
    QSplitter* rightSplitter_;     // the views above, the runs table and log below
    RunsPanel* runsPanel_;
    StatusLine* status_;  // the status line and the engine log

    bool closeAfterRun_ = false;
    Confirmation confirm_;

    // Declared last so it is destroyed first: it stops the run and joins the
    // worker thread while the widgets above still exist.
    std::unique_ptr<RunManager> runs_;
};
