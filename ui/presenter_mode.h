#pragma once

#include <QList>
#include <QObject>
#include <QPointer>
#include <QSize>

class ChartBoard;
class ComparisonSummaryCard;
class QAction;
class QLabel;
class QMainWindow;
class QSplitter;
class QWidget;
class QWindow;
class RunConfigPanel;
class ScalingPredictionPage;

// Presenter mode, for a projector: the charts and classroom views get the
// whole screen in large text (larger on a larger screen, following the window
// from screen to screen), the settings panel's hints a banner over the
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

    // How many times its normal size presenter mode makes the text on a
    // screen of `screenSize` logical pixels: 1.6 up to full HD, then as much
    // more as the screen is larger than full HD in both directions (3.2 at
    // 3840x2160), so that the text takes the same share of the screen.
    static double fontScaleOn(QSize screenSize);

protected:
    // The window shown: presenter mode follows the screen it is on.
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    // The window's text at presenter mode's size for the window's screen, or at its normal size.
    void applyFonts();
    // Presenter mode's text resized to the window's screen after it changed
    // (the window moved to another screen, the screen's resolution changed).
    void fitFontsToScreen();
    // Listens to the window's screen changes and to its screen's size.
    void followScreen();
    // How much larger than full HD the window's screen is while presenting (screenGrowth), else 1.
    double presentedScreenGrowth() const;
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
    double appliedFontScale_ = 1.0;    // the window's text now, times its normal size
    QPointer<QWindow> followedWindow_;  // the native window whose screen changes are followed
    QMetaObject::Connection screenResized_;
};
