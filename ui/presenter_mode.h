#pragma once

#include <QList>
#include <QObject>

class ChartBoard;
class ComparisonSummaryCard;
class QAction;
class QLabel;
class QMainWindow;
class QSplitter;
class QWidget;
class RunConfigPanel;
class ScalingPredictionPage;

// Presenter mode, for a projector: the charts and classroom views get the
// whole screen in large text, the settings panel's hints a banner over the
// charts; leaving it gives back the window's state and splitters as the user
// left them. Also View ▸ Settings panel, which presenter mode overrides.
class PresenterMode : public QObject {
    Q_OBJECT

public:
    struct Parts {
        QMainWindow* window;
        QWidget* settingsColumn;  // hidden while presenting
        QWidget* bottomTabs;      // the runs table and log, hidden while presenting
        QSplitter* settingsSplitter;
        QSplitter* rightSplitter;
        ChartBoard* charts;
        ScalingPredictionPage* scalingPage;
        ComparisonSummaryCard* summaryCard;  // collapsed while presenting
        const RunConfigPanel* settings;      // its hints
        QWidget* progressBar;  // styled, so it takes no font from its parent
    };
    explicit PresenterMode(const Parts& parts, QObject* parent = nullptr);

    QAction* presenterAction() const { return presenterAction_; }
    QAction* settingsPanelAction() const { return settingsPanelAction_; }
    // The settings panel's hints, over the charts in presenter mode (the window places it).
    QLabel* hints() const { return presenterHints_; }

    // MainWindow::setPresenterMode.
    void setPresenting(bool on);
    // The settings panel's hints ("too few steps") stay in view when presenter
    // mode hides the panel: a banner over the charts.
    void showHints();
    // Back from presenter mode's full screen, the splitters as they were;
    // every chart kept a third of the window tall while presenting.
    void windowResized();

private:
    void restoreSplitters();
    // Presenter mode keeps every chart a third of the window tall (ChartBoard's focus view).
    void showLeastPlotHeight();

    QMainWindow* window_;
    QWidget* settingsColumn_;
    QWidget* bottomTabs_;
    QSplitter* settingsSplitter_;
    QSplitter* rightSplitter_;
    ChartBoard* charts_;
    ScalingPredictionPage* scalingPage_;
    ComparisonSummaryCard* summaryCard_;
    const RunConfigPanel* settings_;
    QWidget* progressBar_;
    QLabel* presenterHints_;
    QAction* presenterAction_;
    QAction* settingsPanelAction_;

    // What presenter mode gives back when it ends: the window's state, both
    // splitters' sizes and whether the comparison card was collapsed.
    struct WindowLayout {
        Qt::WindowStates windowState;
        QList<int> settingsSizes, viewSizes;
        bool cardCollapsed = false;
    };
    WindowLayout beforePresenter_;
    bool splittersToRestore_ = false;  // once the window is out of full screen
};
