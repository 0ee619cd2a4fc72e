#include "presenter_mode.h"

#include <QAbstractAxis>
#include <QAction>
#include <QApplication>
#include <QChart>
#include <QEvent>
#include <QKeySequence>
#include <QLabel>
#include <QLegend>
#include <QMainWindow>
#include <QMenuBar>
#include <QScreen>
#include <QSplitter>
#include <QWindow>

#include <algorithm>

#include "chart_board.h"
#include "comparison_summary_card.h"
#include "run_config_panel.h"
#include "scaling_prediction_chart.h"
#include "scaling_prediction_page.h"

namespace {

// Presenter mode: text a class can read from the back of the room, on a
// full-HD screen or a smaller one (1024x768 still holds every view).
constexpr double kPresenterFontScale = 1.6;
// Larger screens (a 4K projector or TV) get text larger by as much, up to
// 8K's: past it a "screen" is a video wall, read from nearer its parts.
const QSize kFullHd(1920, 1080);
constexpr double kMostScreenGrowth = 4;
// No plot shorter outside presenter mode: shorter, the charts show one at a
// time (the focus view) rather than 60 px strips.
constexpr int kLeastPlotHeight = 200;

// How many times as large as full HD a screen of `size` is, in the direction
// it is least so (a portrait or ultra-wide screen has room for no more), at
// least 1, at most kMostScreenGrowth.
double screenGrowth(QSize size)
{
    const double growth = std::min(double(size.width()) / kFullHd.width(), double(size.height()) / kFullHd.height());
    return std::clamp(growth, 1.0, kMostScreenGrowth);
}

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

// F11 and Ctrl+Shift+P switch presenter mode; Esc also leaves it, as it
// leaves a full-screen slide show.
QList<QKeySequence> presenterShortcuts(bool presenting)
{
    QList<QKeySequence> keys{QKeySequence(Qt::Key_F11), QKeySequence(PresenterMode::tr("Ctrl+Shift+P"))};
    if (presenting)
        keys.append(QKeySequence(Qt::Key_Escape));
    return keys;
}

}  // namespace

PresenterMode::PresenterMode(const Parts& parts, QObject* parent)
    : QObject(parent),
      window_(parts.window),
      settingsColumn_(parts.settingsColumn),
      bottomTabs_(parts.bottomTabs),
      settingsSplitter_(parts.settingsSplitter),
      rightSplitter_(parts.rightSplitter),
      charts_(parts.charts),
      scalingPage_(parts.scalingPage),
      summaryCard_(parts.summaryCard),
      settings_(parts.settings),
      progressBar_(parts.progressBar),
      presenterHints_(new QLabel),
      presenterAction_(new QAction(tr("&Presenter mode"), this)),
      settingsPanelAction_(new QAction(tr("Se&ttings panel"), this))
{
    presenterHints_->setObjectName(QStringLiteral("presenterHints"));
    presenterHints_->setWordWrap(true);
    presenterHints_->setStyleSheet(QStringLiteral("background: #fff8e1; color: #5d4037; padding: 4px;"));
    presenterHints_->hide();
    presenterAction_->setObjectName(QStringLiteral("presenterAction"));
    presenterAction_->setCheckable(true);
    presenterAction_->setShortcuts(presenterShortcuts(false));
    presenterAction_->setToolTip(tr("Large fonts, no settings panel: for a projector"));
    connect(presenterAction_, &QAction::toggled, this, &PresenterMode::setPresenting);
    settingsPanelAction_->setObjectName(QStringLiteral("settingsPanelAction"));
    settingsPanelAction_->setCheckable(true);
    settingsPanelAction_->setChecked(true);
    settingsPanelAction_->setShortcut(QKeySequence(tr("Ctrl+Shift+S")));
    settingsPanelAction_->setToolTip(tr("Hide the settings to give the charts the width"));
    connect(settingsPanelAction_, &QAction::toggled, this, [this](bool shown) {
        settingsColumn_->setVisible(shown && !presenterAction_->isChecked());
    });
    window_->installEventFilter(this);
}

double PresenterMode::fontScaleOn(QSize screenSize)
{
    return kPresenterFontScale * screenGrowth(screenSize);
}

bool PresenterMode::eventFilter(QObject* watched, QEvent* event)
{
    // Its native window exists from now on; it may have opened on another
    // screen than the one presenter mode was sized for (--presenter).
    if (watched == window_ && event->type() == QEvent::Show) {
        followScreen();
        fitFontsToScreen();
    }
    return QObject::eventFilter(watched, event);
}

void PresenterMode::followScreen()
{
    QWindow* native = window_->windowHandle();
    if (native && native != followedWindow_) {
        followedWindow_ = native;
        connect(native, &QWindow::screenChanged, this, [this] {
            followScreen();
            fitFontsToScreen();
        });
    }
    disconnect(screenResized_);
    if (QScreen* screen = window_->screen())
        screenResized_ = connect(screen, &QScreen::geometryChanged, this, &PresenterMode::fitFontsToScreen);
}

double PresenterMode::presentedScreenGrowth() const
{
    const QScreen* screen = window_->screen();
    return presenterAction_->isChecked() && screen ? screenGrowth(screen->geometry().size()) : 1.0;
}

void PresenterMode::fitFontsToScreen()
{
    if (presenterAction_->isChecked() && kPresenterFontScale * presentedScreenGrowth() != appliedFontScale_)
        applyFonts();
}

void PresenterMode::applyFonts()
{
    const double growth = presentedScreenGrowth();
    const double scale = presenterAction_->isChecked() ? kPresenterFontScale * growth : 1.0;
    QFont font = QApplication::font();
    font.setPointSizeF(font.pointSizeF() * scale);
    window_->setFont(font);  // the window, so that no widget of it keeps the small font
    // A widget with a style sheet takes no font from its parent.
    for (QWidget* styled : {static_cast<QWidget*>(presenterHints_), progressBar_})
        styled->setFont(font);
    window_->menuBar()->setFont(font);
    charts_->setFontScale(scale, growth);
    scaleChartFonts(*scalingPage_->chart()->chart(), font);
    appliedFontScale_ = scale;
}

void PresenterMode::windowResized()
{
    showLeastPlotHeight();
    if (splittersToRestore_ && !window_->isFullScreen())
        restoreSplitters();
}

void PresenterMode::setPresenting(bool on)
{
    if (presenterAction_->isChecked() != on) {
        presenterAction_->setChecked(on);  // comes back here through toggled
        return;
    }
    if (on)
        beforePresenter_ = {window_->windowState(), settingsSplitter_->sizes(), rightSplitter_->sizes(),
                            summaryCard_->isCollapsed()};
    // The charts and classroom views get the whole window, or the whole
    // screen for a window already on it (one not shown yet is sized by
    // whoever shows it: --presenter, the tests).
    settingsColumn_->setVisible(!on && settingsPanelAction_->isChecked());
    bottomTabs_->setVisible(!on);
    applyFonts();
    showHints();
    presenterAction_->setShortcuts(presenterShortcuts(on));
    // The card's verdict line leaves a projector's short screen to the
    // charts (its ▸ opens the rest); the grid gives way to the focus view
    // where it cannot keep a chart a third of the screen tall.
    summaryCard_->setCollapsed(on || beforePresenter_.cardCollapsed);
    showLeastPlotHeight();
    if (on) {
        if (window_->isVisible())
            window_->showFullScreen();
    } else if (window_->isVisible() && window_->windowState() != beforePresenter_.windowState) {
        // The window gets its size back with its state, then the splitters
        // theirs (resizeEvent), as the user left them.
        splittersToRestore_ = true;
        window_->setWindowState(beforePresenter_.windowState);
    } else {
        restoreSplitters();
    }
}

// The settings panel's hints ("too few steps") stay in view when presenter
// mode hides the panel: a banner over the charts.
void PresenterMode::showHints()
{
    const QStringList hints = settings_->hints();
    presenterHints_->setText(hints.join(QLatin1Char('\n')));
    presenterHints_->setVisible(presenterAction_->isChecked() && !hints.isEmpty());
}

void PresenterMode::restoreSplitters()
{
    splittersToRestore_ = false;
    if (!beforePresenter_.settingsSizes.isEmpty())
        settingsSplitter_->setSizes(beforePresenter_.settingsSizes);
    if (!beforePresenter_.viewSizes.isEmpty())
        rightSplitter_->setSizes(beforePresenter_.viewSizes);
}

void PresenterMode::showLeastPlotHeight()
{
    // A third of the window, which presenter mode makes the screen; else
    // kLeastPlotHeight: the focus view rather than plots too short to read.
    charts_->setLeastPlotHeight(presenterAction_->isChecked() ? window_->height() / 3 : kLeastPlotHeight);
}
