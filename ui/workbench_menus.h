#pragma once

#include <QObject>

class ChartBoard;
class MainWindow;
class PresenterMode;
class QAction;
class QWidget;
class RunControls;
class RunManager;
class XAxisChoice;

// The window's menu bar (File, Run, View, Lessons, Help) and the chart
// switches beside the charts that mirror View's most used actions. Its
// actions call the window's slots, or the rooms that own what they change.
class WorkbenchMenus : public QObject {
    Q_OBJECT

public:
    struct Parts {
        RunManager* runs;  // where runs write their step traces
        RunControls* runControls;  // Run ▸ Re-measure kernels
        PresenterMode* presenterMode;  // View ▸ Presenter mode and Settings panel
        ChartBoard* charts;
    };
    WorkbenchMenus(MainWindow* window, const Parts& parts);

    // The x axis, smoothing and log loss switches, above the charts (the window places them).
    QWidget* chartSwitches() const { return chartSwitches_; }
    // View's x axis actions and the combo beside the charts.
    XAxisChoice* xAxis() const { return xAxis_; }
    QAction* smoothLossAction() const { return smoothLossAction_; }
    QAction* logLossAction() const { return logLossAction_; }
    // Checked: runs write Chrome step traces to MainWindow::stepTraceFolder().
    QAction* writeTracesAction() const { return writeTracesAction_; }

signals:
    // A switch the next session starts with changed (x axis, smoothing, log loss, traces).
    void switchesChanged();

private:
    void buildFileMenu();
    void buildRunMenu();
    void buildViewMenu();
    void buildLessonsMenu();
    // The View actions a teacher flips most, as switches above the charts.
    void buildChartSwitches();
    void chooseImportFile();
    void chooseExportFolder();

    MainWindow* window_;
    RunManager* runs_;
    RunControls* runControls_;
    PresenterMode* presenterMode_;
    ChartBoard* charts_;
    QWidget* chartSwitches_ = nullptr;
    XAxisChoice* xAxis_ = nullptr;
    QAction* smoothLossAction_ = nullptr;
    QAction* logLossAction_ = nullptr;
    QAction* writeTracesAction_ = nullptr;
};
