// Presenter mode's focus view, on the offscreen platform given a projector's
// 1280x720 screen: after a comparison, one chart large and the others a click
// or a key away, every chart shown at least a third of the screen tall, the
// comparison card collapsed to its verdict and open again with a click; out
// of presenter mode, the charts exactly as they were. And outside presenter
// mode, maximized on 1280x720 and 1366x768 screens after a comparison: the
// charts own the screen (every plot at least 200 px tall, nothing
// scrolling, no text under 12 px). And every text large and whole: in
// presenter mode at 1024x768 through 3840x2160 (16 px), outside it at 1024x768
// and 3840x2160 (12 px), on the charts, the Scaling tab and the Classroom's views.
// And presenter mode's text growing with the screen: every text on 3840x2160
// about twice its size on 1920x1080, following the window to another screen.
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QProgressBar>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>

#include "batch_split_view.h"
#include "chart_board.h"
#include "classroom_page.h"
#include "comparison_summary_card.h"
#include "config/train_config.h"
#include "gap_waterfall_chart.h"
#include "main_window.h"
#include "presenter_mode.h"
#include "record/run_record.h"
#include "run_chart_view.h"
#include "run_config_panel.h"
#include "ring_allreduce_view.h"
#include "run_history.h"
#include "scaling_prediction_page.h"
#include "shown_board.h"
#include "text_floor.h"
#include "workbench_sandbox.h"

namespace {

constexpr int kScreenWidth = 1280;
constexpr int kScreenHeight = 720;
// A laptop's screen beside the projector's.
constexpr int kLaptopWidth = 1366;
constexpr int kLaptopHeight = 768;
// The smallest screen the window fits, and the largest, beside a full-HD one.
const QSize kSmallScreen(1024, 768);
const QSize kFullHdScreen(1920, 1080);
const QSize kUhdScreen(3840, 2160);
// Text a class reads from the back of the room; text anyone reads on a desk.
constexpr int kPresenterFloor = 16;
constexpr int kDeskFloor = 12;

// A finished 3-epoch LeNet run of comparison "c" on `devices` CPU devices;
// the N-device run measured its drift from the 1-device one.
dp::RunRecord comparedRun(const std::string& id, const std::string& startedAt, int devices)
{
    dp::TrainConfig config;
    config.model = "lenet";
    config.batch_size = 64;
    config.epochs = 3;
    config.devices.clear();
    for (int device = 0; device < devices; ++device) {
        std::string name = "cpu:";
        name += std::to_string(device);
        config.devices.push_back(name);
    }
    if (devices > 1)
        config.drift_from = "snapshots";
    dp::RunRecord record = dp::start_run_record(config, "dp-workbench");
    record.id = id;
    record.started_at = startedAt;
    record.status = dp::RunStatus::finished;
    const std::string group = "c";
    record.comparison_group = group;
    for (int epoch = 1; epoch <= 3; ++epoch) {
        dp::EpochMetrics metrics{epoch, 1.0 / epoch, 0.6 + 0.1 * epoch, 0.55 + 0.1 * epoch, 6.0 / devices};
        metrics.parameter_drift = devices > 1 ? 1e-6 * std::pow(10, epoch) : NAN;
        record.epochs.push_back(metrics);
    }
    return record;
}

// comparedRun with the step timings a run keeps (every record since they
// were): the Classroom draws its mean step, the Scaling tab predicts from it.
dp::RunRecord timedComparedRun(const std::string& id, const std::string& startedAt, int devices)
{
    dp::RunRecord record = comparedRun(id, startedAt, devices);
    constexpr int kSteps = 100;
    record.steps = kSteps;
    for (int device = 0; device < devices; ++device) {
        dp::DeviceStepTiming total;
        total.shard = kSteps * record.config.batch_size / devices;
        total.data = kSteps * 0.001;
        total.forward = kSteps * 0.010 / devices;
        total.backward = kSteps * 0.020 / devices;
        total.allreduce = devices > 1 ? kSteps * 0.004 : 0;
        total.update = kSteps * 0.002;
        record.step_totals.push_back(total);
    }
    return record;
}

// Shows `window` maximized on the offscreen platform's screen of `size`:
// false where there is no such screen or the window never fills it.
bool showMaximizedOn(QWidget& window, QSize size)
{
    const QList<QScreen*> screens = QGuiApplication::screens();
    const auto screen = std::find_if(screens.begin(), screens.end(),
                                     [size](const QScreen* candidate) { return candidate->geometry().size() == size; });
    if (screen == screens.end())
        return false;
    window.setScreen(*screen);
    window.move((*screen)->geometry().topLeft());
    window.showMaximized();
    return QTest::qWaitForWindowExposed(&window) && QTest::qWaitFor([&window, screen] {
               return window.frameGeometry().size() == (*screen)->availableGeometry().size();
           });
}

// Shows `window` maximized on the screen of `screenSize`, in presenter mode
// (full screen) if `presenting`, for a text check. Returns the settings
// panel's scroll area, which scrolls on a short screen by design; null if
// the window did not show so.
const QScrollArea* showForTextCheck(MainWindow& window, QSize screenSize, bool presenting)
{
    if (!showMaximizedOn(window, screenSize))
        return nullptr;
    if (presenting) {
        window.findChild<QAction*>(QStringLiteral("presenterAction"))->trigger();
        if (!QTest::qWaitFor([&] { return window.size() == screenSize; }))
            return nullptr;
    }
    for (const QScrollArea* area : window.findChildren<QScrollArea*>())
        if (area->widget() == window.findChild<RunConfigPanel*>())
            return area;
    return nullptr;
}

// Why `area` hides part of its content from the user (it neither holds it
// nor shows a scroll bar to reach the rest), or empty.
QString unreachable(const QAbstractScrollArea& area)
{
    const auto* scroll = qobject_cast<const QScrollArea*>(&area);
    if (!area.isVisible())
        return {};
    const int content = scroll && scroll->widget() ? scroll->widget()->height() : area.viewport()->height();
    if (content <= area.viewport()->height() || area.verticalScrollBar()->isVisible())
        return {};
    return QStringLiteral("%1 shows %2 px of %3 without a scroll bar")
        .arg(area.objectName())
        .arg(area.viewport()->height())
        .arg(content);
}

// Every text problem of `window` (text_floor.h) and every scroll area of
// `mayScroll` that does not let the user reach all of its content.
QString textProblemsShown(QWidget& window, int floor, const QList<const QAbstractScrollArea*>& mayScroll)
{
    QStringList problems = text_floor::textProblems(window, floor, mayScroll);
    for (const QAbstractScrollArea* area : mayScroll)
        if (const QString problem = unreachable(*area); !problem.isEmpty())
            problems << problem;
    return problems.join(QLatin1Char('\n'));
}

// The charts of `board` on screen now, by object name.
std::map<QString, QRect> shownCharts(const ChartBoard& board)
{
    std::map<QString, QRect> shown;
    for (QWidget* chart : board.findChildren<QWidget*>()) {
        const bool isChart = qobject_cast<RunChartView*>(chart) || qobject_cast<GapWaterfallChart*>(chart);
        if (isChart && chart->isVisible())
            shown[chart->objectName()] = chart->geometry();
    }
    return shown;
}

// The shown chart shorter than `least`, or empty.
QString chartShorterThan(const ChartBoard& board, int least)
{
    for (const auto& [name, geometry] : shownCharts(board)) {
        if (geometry.height() < least)
            return QStringLiteral("%1 is %2 px tall").arg(name).arg(geometry.height());
    }
    return {};
}

// A comparison repeated three times, as Compare does by default, saved and
// checked: six runs, each a line under the Scaling tab's chart.
void saveRepeatedComparison()
{
    RunHistory history;
    QStringList checked;
    for (int repeat = 0; repeat < 3; ++repeat) {
        for (int devices = 1; devices <= 2; ++devices) {
            const std::string id = QStringLiteral("c%1-%2").arg(repeat).arg(devices).toStdString();
            history.save(timedComparedRun(id, "2026-11-20T10:0" + std::to_string(2 * repeat + devices) + ":00Z", devices));
            checked << QString::fromStdString(id);
        }
    }
    QSettings().setValue(QStringLiteral("runs/checked"), checked);
}

// The views a class is shown after a comparison, in the order the tests show them.
enum class View { charts, scaling, classroom, ring };

// Shows `view` of `window` (after saveRepeatedComparison) once it is drawn:
// the Scaling tab once this machine is measured, the Classroom's step, its
// ring all-reduce after a step. Adds the scroll areas there that scroll up
// and down by design to `mayScroll`. Fails the test where it cannot.
void showView(MainWindow& window, View view, QList<const QAbstractScrollArea*>& mayScroll)
{
    auto* tabs = window.findChild<QTabWidget*>(QStringLiteral("viewTabs"));
    auto* scaling = window.findChild<ScalingPredictionPage*>();
    auto* classroom = window.findChild<ClassroomPage*>(QStringLiteral("classroomPage"));
    QVERIFY(tabs && scaling && classroom);
    switch (view) {
    case View::charts:
        tabs->setCurrentIndex(0);
        QTest::qWait(50);  // the layouts settle
        break;
    case View::scaling: {
        tabs->setCurrentWidget(scaling);
        QTRY_VERIFY_WITH_TIMEOUT(!scaling->isMeasuring(), 60000);
        QTRY_VERIFY(scaling->statusText().startsWith(QStringLiteral("Predicting from")));
        // Its notes and the lines beside its chart scroll under the chart.
        auto* notes = scaling->findChild<QScrollArea*>(QStringLiteral("predictionNotesScroll"));
        auto* caption = scaling->findChild<QScrollArea*>(QStringLiteral("predictionCaptionScroll"));
        QVERIFY(notes && caption);
        mayScroll << notes << caption;
        break;
    }
    case View::classroom:
        tabs->setCurrentWidget(classroom);
        QTRY_VERIFY(!classroom->batchSplitView()->lastShards().empty());
        QTRY_VERIFY(classroom->batchSplitView()->labelsEveryRow());  // its painted rows
        break;
    case View::ring: {
        tabs->setCurrentWidget(classroom);
        classroom->showRingAllReduce(true);
        RingAllReduceView* ring = classroom->ringAllReduceView();
        QTRY_VERIFY_WITH_TIMEOUT(!ring->awaitsMeasurement(), 60000);
        ring->setStep(1);
        // The traffic table scrolls beside the ring.
        auto* traffic = ring->findChild<QScrollArea*>(QStringLiteral("ringTrafficScroll"));
        QVERIFY(traffic);
        mayScroll << traffic;
        break;
    }
    }
}

// Where `widget` sits in `window`: each holder's object name, or its class
// and place among its siblings; the same in two windows built alike.
QString widgetPath(const QWidget& widget, const QWidget& window)
{
    QStringList path;
    for (const QWidget* part = &widget; part && part != &window; part = part->parentWidget()) {
        QString name = part->objectName();
        if (name.isEmpty()) {
            const QObjectList siblings = part->parent() ? part->parent()->children() : QObjectList();
            name = QStringLiteral("%1#%2").arg(QString::fromUtf8(part->metaObject()->className())).arg(siblings.indexOf(part));
        }
        path.prepend(name);
    }
    return path.join(QLatin1Char('/'));
}

// The size in pixels of each text `window` shows, by where it is: each
// visible widget's font, the smallest text it paints itself, its chart's
// title, legend, axes and the scene's other texts.
std::map<QString, double> textSizes(QWidget& window)
{
    std::map<QString, double> sizes;
    const auto note = [&sizes](const QString& what, double pixels) {
        const auto [place, added] = sizes.emplace(what, pixels);
        if (!added)
            place->second = std::min(place->second, pixels);
    };
    for (QWidget* widget : window.findChildren<QWidget*>()) {
        if (!widget->isVisible() || widget->size().isEmpty())
            continue;
        const QString path = widgetPath(*widget, window);
        note(path, text_floor::pixelSize(widget->font()));
        text_floor::TextSizeRecorder recorder(*widget);
        widget->render(&recorder, QPoint(), QRegion(), QWidget::RenderFlags());
        for (const auto& [text, pixels] : recorder.texts())
            if (!text.trimmed().isEmpty())
                note(path + QStringLiteral(" paints"), pixels);
        const auto* view = qobject_cast<const QChartView*>(widget);
        if (!view)
            continue;
        const QChart& chart = *view->chart();
        if (!chart.title().isEmpty())
            note(path + QStringLiteral(" title"), text_floor::pixelSize(chart.titleFont()));
        if (chart.legend()->isVisible() && !chart.legend()->markers().isEmpty())
            note(path + QStringLiteral(" legend"), text_floor::pixelSize(chart.legend()->font()));
        for (const QAbstractAxis* axis : chart.axes())
            if (axis->isVisible() && axis->labelsVisible())
                note(path + QStringLiteral(" axis labels"), text_floor::pixelSize(axis->labelsFont()));
        for (const QGraphicsItem* item : view->scene()->items()) {
            if (const auto* simple = dynamic_cast<const QGraphicsSimpleTextItem*>(item);
                simple && simple->isVisible() && !simple->text().trimmed().isEmpty())
                note(path + QStringLiteral(" scene text"), text_floor::pixelSize(simple->font()));
            if (const auto* rich = dynamic_cast<const QGraphicsTextItem*>(item);
                rich && rich->isVisible() && !rich->toPlainText().trimmed().isEmpty())
                note(path + QStringLiteral(" scene text"), text_floor::pixelSize(rich->font()));
        }
    }
    return sizes;
}

// The size of every text (textSizes) on each view (showView) of a window in
// presenter mode on a screen of `screenSize`, after saveRepeatedComparison,
// by view and place.
void presentedTextSizes(QSize screenSize, std::map<QString, double>& sizes)
{
    MainWindow window;
    QVERIFY(showMaximizedOn(window, screenSize));
    window.findChild<QAction*>(QStringLiteral("presenterAction"))->trigger();
    QTRY_COMPARE(window.size(), screenSize);
    QList<const QAbstractScrollArea*> mayScroll;
    const std::pair<View, const char*> views[] = {
        {View::charts, "charts"}, {View::scaling, "scaling"}, {View::classroom, "classroom"}, {View::ring, "ring"}};
    for (const auto& [view, name] : views) {
        showView(window, view, mayScroll);
        if (QTest::currentTestFailed())
            return;
        QTest::qWait(50);  // the layouts settle
        for (const auto& [where, pixels] : textSizes(window))
            sizes[QLatin1String(name) + QStringLiteral(": ") + where] = pixels;
    }
}

}  // namespace

class TestPresenterFocus : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void focusViewWhereTheGridsRowsWouldBeTooShort();
    void presenterModeAfterAComparisonAt1280x720();
    void chartsOwnTheScreenAfterAComparison_data();
    void chartsOwnTheScreenAfterAComparison();
    void textFloorCheckFindsSmallAndClippedText();
    void textLargeAndWholeOnEveryView_data();
    void textLargeAndWholeOnEveryView();
    void textLargeAndWholeBeforeAnyRun_data();
    void textLargeAndWholeBeforeAnyRun();
    void presenterTextGrowsWithTheScreen();
    void presenterTextTwiceAsLargeAt3840x2160();
    void presenterTextFollowsTheWindowToAnotherScreen();
    void presenterTextSizedForTheScreenTheWindowOpensOn();

private:
    QTemporaryDir scratch_;
    int dataDirs_ = 0;
};

void TestPresenterFocus::initTestCase()
{
    QVERIFY(scratch_.isValid());
    keepWorkbenchSettingsIn(scratch_, "test_presenter_focus");
}

void TestPresenterFocus::init()
{
    startWithEmptySettingsAndHistory(scratch_, dataDirs_);
}

// The board alone: a grid while its rows are tall enough, the focus view
// once drift's row makes them too short; keys and buttons pick the chart.
void TestPresenterFocus::focusViewWhereTheGridsRowsWouldBeTooShort()
{
    ShownBoard shown;
    ChartBoard& board = shown.board;
    constexpr int kLeast = 200;
    board.setLeastPlotHeight(kLeast);
    QVERIFY(!board.showsFocusView());  // two rows of about 300 px
    QCOMPARE(shownCharts(board).size(), std::size_t(5));  // no drift yet
    QCOMPARE(board.focusChoices().size(), std::size_t(5));

    board.updateRun(comparedRun("n", "2026-11-20T10:01:00Z", 2), Qt::red);  // drift: a third row
    // Folded beside the waterfall first: two rows of three, each tall enough.
    QTRY_COMPARE(shownCharts(board).size(), std::size_t(6));
    QVERIFY(!board.showsFocusView());
    QTRY_COMPARE(chartShorterThan(board, kLeast), QString());
    // Asked for taller plots than two rows give: the focus view.
    constexpr int kTaller = 300;
    board.setLeastPlotHeight(kTaller);
    QTRY_VERIFY(board.showsFocusView());
    QCOMPARE(board.focusChoices().size(), std::size_t(6));
    QTRY_COMPARE(shownCharts(board).size(), std::size_t(1));
    QCOMPARE(shownCharts(board).begin()->first, QStringLiteral("accuracyChart"));
    QTRY_COMPARE(chartShorterThan(board, kTaller), QString());

    // Its button and the keys switch the chart shown, round the end.
    auto* speedupButton = shown.chart<QToolButton>("focus_speedupChart");
    QVERIFY(speedupButton && speedupButton->isVisible());
    speedupButton->click();
    QCOMPARE(board.focusedChart()->objectName(), QStringLiteral("speedupChart"));
    QTRY_VERIFY(shown.chart<QWidget>("speedupChart")->isVisible());
    QVERIFY(!shown.chart<QWidget>("accuracyChart")->isVisible());
    board.focusNextChart(1);
    QCOMPARE(board.focusedChart()->objectName(), QStringLiteral("gapWaterfallChart"));
    board.focusNextChart(2);
    QCOMPARE(board.focusedChart()->objectName(), QStringLiteral("accuracyChart"));
    board.focusNextChart(-1);
    QCOMPARE(board.focusedChart()->objectName(), QStringLiteral("driftChart"));
    QVERIFY(shown.chart<QToolButton>("focus_driftChart")->isChecked());

    // No least height: the grid again, all six.
    board.setLeastPlotHeight(0);
    QVERIFY(!board.showsFocusView());
    QTRY_COMPARE(shownCharts(board).size(), std::size_t(6));
}

// F11 on a 1280x720 screen after a comparison: the focus view, every chart
// shown at least 240 px tall, the card one line until opened; F11 again
// gives the grid back as it was.
void TestPresenterFocus::presenterModeAfterAComparisonAt1280x720()
{
    {
        RunHistory history;
        history.save(comparedRun("c1", "2026-11-20T10:00:00Z", 1));
        history.save(comparedRun("c2", "2026-11-20T10:01:00Z", 2));
    }
    // Checked when the window last closed: the charts and the card come back.
    QSettings().setValue(QStringLiteral("runs/checked"), QStringList{QStringLiteral("c1"), QStringLiteral("c2")});
    MainWindow window;
    QCOMPARE(window.screen()->geometry().size(), QSize(kScreenWidth, kScreenHeight));
    window.resize(1200, 680);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto* board = window.findChild<ChartBoard*>();
    auto* card = window.findChild<ComparisonSummaryCard*>(QStringLiteral("comparisonSummaryCard"));
    auto* collapse = window.findChild<QToolButton*>(QStringLiteral("collapseComparisonSummary"));
    auto* verdict = window.findChild<QLabel*>(QStringLiteral("comparisonVerdictLine"));
    auto* text = window.findChild<QLabel*>(QStringLiteral("comparisonSummaryText"));
    auto* presenter = window.findChild<QAction*>(QStringLiteral("presenterAction"));
    auto* progress = window.findChild<QProgressBar*>(QStringLiteral("batchProgressBar"));
    QVERIFY(board && card && collapse && verdict && text && presenter && progress);
    const qreal normalPoints = progress->font().pointSizeF();
    // The card starts as its one line, the verdict with its range.
    QVERIFY(card->isVisible() && card->isCollapsed() && !text->isVisible() && verdict->isVisible());
    QVERIFY2(card->verdict().startsWith(QStringLiteral("LeNet, 1 vs 2 devices: 2.00× faster on 2 devices (")),
             qPrintable(card->verdict()));
    collapse->click();  // opened, as the user may leave it
    QVERIFY(!card->isCollapsed());
    QTest::qWait(50);  // the layouts settle
    QTRY_COMPARE(chartShorterThan(*board, 200), QString());
    const std::map<QString, QRect> grid = shownCharts(*board);
    const bool gridShown = !board->showsFocusView();

    presenter->trigger();
    QTRY_COMPARE(window.size(), QSize(kScreenWidth, kScreenHeight));
    QTRY_VERIFY(board->showsFocusView());
    constexpr int kThird = kScreenHeight / 3;
    QTRY_COMPARE(chartShorterThan(*board, kThird), QString());
    QCOMPARE(shownCharts(*board).size(), std::size_t(1));
    // Enlarged with the rest, though its style sheet keeps its parent's font from it.
    QVERIFY(progress->font().pointSizeF() > 1.4 * normalPoints);
    // The card: its verdict on one line, whole at presenter size.
    QVERIFY(card->isCollapsed() && verdict->isVisible() && !text->isVisible());
    QTRY_COMPARE(verdict->text(), card->verdict());
    const int collapsedHeight = card->height();

    // Opened, the whole summary; the chart keeps its height (the page scrolls).
    collapse->click();
    QVERIFY(!card->isCollapsed() && text->isVisible() && !verdict->isVisible());
    QTRY_VERIFY(card->height() > collapsedHeight);
    QTRY_VERIFY(text->height() >= text->heightForWidth(text->width()));
    QTRY_COMPARE(chartShorterThan(*board, kThird), QString());
    collapse->click();
    QVERIFY(card->isCollapsed());
    QTRY_COMPARE(card->height(), collapsedHeight);

    // Ctrl+2 shows the loss; PgDn the next chart, PgUp back.
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QTest::keyClick(&window, Qt::Key_2, Qt::ControlModifier);
    QCOMPARE(board->focusedChart()->objectName(), QStringLiteral("lossChart"));
    QTest::keyClick(&window, Qt::Key_PageDown);
    QCOMPARE(board->focusedChart()->objectName(), QStringLiteral("secondsChart"));
    QTest::keyClick(&window, Qt::Key_PageUp);
    QCOMPARE(board->focusedChart()->objectName(), QStringLiteral("lossChart"));
    QTRY_VERIFY(window.findChild<QWidget*>(QStringLiteral("lossChart"))->isVisible());
    QTRY_COMPARE(chartShorterThan(*board, kThird), QString());

    // Out of presenter mode: every chart where it was, the card as it was.
    presenter->trigger();
    QTRY_COMPARE(window.size(), QSize(1200, 680));
    QVERIFY(!card->isCollapsed());
    QCOMPARE(progress->font().pointSizeF(), normalPoints);
    QTRY_COMPARE(board->showsFocusView(), !gridShown);
    if (gridShown) {
        QTRY_VERIFY(shownCharts(*board) == grid);
        // The keys are the focus view's only.
        QTest::keyClick(&window, Qt::Key_PageDown);
        QCOMPARE(board->focusedChart()->objectName(), QStringLiteral("lossChart"));
    }
    QTRY_COMPARE(chartShorterThan(*board, 200), QString());
}

void TestPresenterFocus::chartsOwnTheScreenAfterAComparison_data()
{
    QTest::addColumn<QSize>("screenSize");
    QTest::newRow("1280x720") << QSize(kScreenWidth, kScreenHeight);
    QTest::newRow("1366x768") << QSize(kLaptopWidth, kLaptopHeight);
}

// Maximized after a saved comparison, outside presenter mode: every plot
// shown at least 200 px tall (a grid, or one chart large with the others a
// click away), the chart page not scrolling, the card one line, the runs
// table no taller than its rows, and no text under 12 px anywhere.
void TestPresenterFocus::chartsOwnTheScreenAfterAComparison()
{
    QFETCH(QSize, screenSize);
    {
        RunHistory history;
        history.save(comparedRun("c1", "2026-11-20T10:00:00Z", 1));
        history.save(comparedRun("c2", "2026-11-20T10:01:00Z", 2));
    }
    QSettings().setValue(QStringLiteral("runs/checked"), QStringList{QStringLiteral("c1"), QStringLiteral("c2")});
    MainWindow window;
    QVERIFY(showMaximizedOn(window, screenSize));
    auto* board = window.findChild<ChartBoard*>();
    auto* card = window.findChild<ComparisonSummaryCard*>(QStringLiteral("comparisonSummaryCard"));
    auto* chartsScroll = window.findChild<QScrollArea*>(QStringLiteral("chartsScroll"));
    auto* runsTable = window.findChild<QAbstractScrollArea*>(QStringLiteral("runsTable"));
    QVERIFY(board && card && chartsScroll && runsTable);
    QTRY_VERIFY(card->isVisible());
    QVERIFY(card->isCollapsed());
    QTest::qWait(50);  // the layouts settle
    QTRY_COMPARE(chartShorterThan(*board, 200), QString());
    QVERIFY(!shownCharts(*board).empty());
    QTRY_VERIFY2(!chartsScroll->verticalScrollBar()->isVisible(),
                 qPrintable(QStringLiteral("the chart page scrolls: %1 px of %2")
                                .arg(chartsScroll->viewport()->height())
                                .arg(chartsScroll->widget()->height())));
    // Two runs: the table holds them and little more (it took 150 px before).
    QVERIFY2(runsTable->viewport()->height() <= 6 * 30, qPrintable(QString::number(runsTable->viewport()->height())));
    for (const QWidget* widget : window.findChildren<QWidget*>()) {
        if (widget->isVisible())
            QVERIFY2(QFontInfo(widget->font()).pixelSize() >= 12,
                     qPrintable(QStringLiteral("%1 (%2): %3 px text")
                                    .arg(widget->objectName(), widget->metaObject()->className())
                                    .arg(QFontInfo(widget->font()).pixelSize())));
    }
}

// The check itself (text_floor.h), on a page of known faults: each small
// or clipped text named, and a page without them passes.
void TestPresenterFocus::textFloorCheckFindsSmallAndClippedText()
{
    // Text a widget paints itself, in a font of `pixels`.
    class PaintedNote : public QWidget {
    public:
        explicit PaintedNote(int pixels) : pixels_(pixels) { setObjectName(QStringLiteral("paintedNote")); }

    protected:
        void paintEvent(QPaintEvent*) override
        {
            QPainter painter(this);
            QFont small = font();
            small.setPixelSize(pixels_);
            painter.setFont(small);
            painter.drawText(rect(), QStringLiteral("painted"));
        }

    private:
        int pixels_;
    };
    QWidget page;
    auto* layout = new QVBoxLayout(&page);
    auto* tiny = new QLabel(QStringLiteral("tiny"));
    tiny->setObjectName(QStringLiteral("tinyLabel"));
    QFont nine = tiny->font();
    nine.setPixelSize(9);
    tiny->setFont(nine);
    auto* rich = new QLabel(QStringLiteral("<b>Rich</b> <span style=\"font-size:7px\">small print</span>"));
    rich->setObjectName(QStringLiteral("richLabel"));
    auto* combo = new QComboBox;
    combo->setObjectName(QStringLiteral("squeezedCombo"));
    combo->addItem(QStringLiteral("a combo item far longer than its box"));
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(4);
    combo->setFixedWidth(80);
    auto* painted = new PaintedNote(8);
    painted->setMinimumSize(100, 30);
    for (QWidget* widget : {static_cast<QWidget*>(tiny), static_cast<QWidget*>(rich), static_cast<QWidget*>(combo),
                            static_cast<QWidget*>(painted)})
        layout->addWidget(widget);
    page.resize(400, 300);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    const QString found = text_floor::textProblems(page, kDeskFloor).join(QLatin1Char('\n'));
    for (const char* expected : {"tinyLabel (QLabel): 9 px text", "richLabel (QLabel) paints \"small print\" at 7.0 px",
                                 "squeezedCombo (QComboBox)", "paintedNote (QWidget) paints \"painted\" at 8.0 px"})
        QVERIFY2(found.contains(QLatin1String(expected)), qPrintable(found));

    // A wrapped label given too little height, and one cut off by its page.
    auto* wrapped = new QLabel(QStringLiteral("many words that wrap onto several lines in a narrow label"));
    wrapped->setObjectName(QStringLiteral("wrappedLabel"));
    wrapped->setWordWrap(true);
    wrapped->setParent(&page);
    wrapped->setGeometry(0, 0, 80, 10);
    wrapped->show();
    auto* cut = new QPushButton(QStringLiteral("Cut off"), &page);
    cut->setObjectName(QStringLiteral("cutButton"));
    cut->setGeometry(page.width() - 20, 0, 120, 40);
    cut->show();
    const QString more = text_floor::textProblems(page, kDeskFloor).join(QLatin1Char('\n'));
    QVERIFY2(more.contains(QLatin1String("wrappedLabel (QLabel) \"many words")) && more.contains(QLatin1String("lines need")),
             qPrintable(more));
    QVERIFY2(more.contains(QLatin1String("cutButton (QPushButton) at")) && more.contains(QLatin1String("lies partly outside")),
             qPrintable(more));

    // Without the faults: nothing to say.
    for (QWidget* fault : {static_cast<QWidget*>(tiny), static_cast<QWidget*>(rich), static_cast<QWidget*>(combo),
                           static_cast<QWidget*>(painted), static_cast<QWidget*>(wrapped), static_cast<QWidget*>(cut)})
        fault->hide();
    QCOMPARE(text_floor::textProblems(page, kDeskFloor), QStringList());
}

void TestPresenterFocus::textLargeAndWholeOnEveryView_data()
{
    QTest::addColumn<QSize>("screenSize");
    QTest::addColumn<bool>("presenting");
    for (const QSize size : {kSmallScreen, QSize(kScreenWidth, kScreenHeight), kFullHdScreen, kUhdScreen})
        QTest::addRow("presenter %dx%d", size.width(), size.height()) << size << true;
    for (const QSize size : {kSmallScreen, kUhdScreen})
        QTest::addRow("desk %dx%d", size.width(), size.height()) << size << false;
}

// Maximized after a saved comparison (presenter mode then fills the screen):
// the charts, the Scaling tab, the Classroom's step and its ring all-reduce
// each show every text at least the floor tall (16 px presenting, else 12)
// and none clipped. What cannot fit scrolls up and down, and says so with a
// scroll bar: the Scaling tab's notes and the lines beside its chart, the
// ring's traffic table, the settings panel.
void TestPresenterFocus::textLargeAndWholeOnEveryView()
{
    QFETCH(QSize, screenSize);
    QFETCH(bool, presenting);
    const int floor = presenting ? kPresenterFloor : kDeskFloor;
    saveRepeatedComparison();
    MainWindow window;
    const QScrollArea* settings = showForTextCheck(window, screenSize, presenting);
    QVERIFY(settings);
    // The settings panel scrolls on a short screen, by design (hidden in presenter mode);
    // so does the run legend past its few lines (ChartBoard::fitLegend), which the CPU
    // view beside it narrows.
    const auto* legend = window.findChild<QScrollArea*>(QStringLiteral("runLegendScroll"));
    QVERIFY(legend);
    QList<const QAbstractScrollArea*> mayScroll{settings, legend};

    // The charts after the comparison (nothing else scrolls there), the
    // Scaling tab, the Classroom's mean step of the saved run, its ring all-reduce.
    for (const View view : {View::charts, View::scaling, View::classroom, View::ring}) {
        showView(window, view, mayScroll);
        if (QTest::currentTestFailed())
            return;
        QTRY_COMPARE(textProblemsShown(window, floor, mayScroll), QString());
    }
    RingAllReduceView* ring = window.findChild<ClassroomPage*>(QStringLiteral("classroomPage"))->ringAllReduceView();
    // Every link's name whole in the combo, not only the first.
    auto* links = ring->findChild<QComboBox*>(QStringLiteral("ringLinkCombo"));
    QVERIFY(links);
    for (int link = 1; link < links->count(); ++link) {
        links->setCurrentIndex(link);
        QTRY_COMPARE(textProblemsShown(window, floor, mayScroll), QString());
    }
    // Eight devices on a preset link: cells too narrow for their devices'
    // names say how many gradients they sum, never in a smaller font.
    ring->setDevices(8);
    ring->setStep(5);
    QTRY_COMPARE(textProblemsShown(window, floor, mayScroll), QString());
}

void TestPresenterFocus::textLargeAndWholeBeforeAnyRun_data()
{
    textLargeAndWholeOnEveryView_data();
}

// A first launch, maximized, no run yet: the empty charts' hints ("Press
// Start to train ..."), the runs table's, the settings, whole and large enough.
void TestPresenterFocus::textLargeAndWholeBeforeAnyRun()
{
    QFETCH(QSize, screenSize);
    QFETCH(bool, presenting);
    MainWindow window;
    const QScrollArea* settings = showForTextCheck(window, screenSize, presenting);
    QVERIFY(settings);
    QTest::qWait(50);  // the layouts settle
    QTRY_COMPARE(textProblemsShown(window, presenting ? kPresenterFloor : kDeskFloor, {settings}), QString());
}

// Presenter mode's text: 1.6 times its normal size up to full HD (small
// screens hold every view at that size), then as much larger as the screen
// is in its shorter direction, up to 8K's.
void TestPresenterFocus::presenterTextGrowsWithTheScreen()
{
    for (const QSize today : {kSmallScreen, QSize(kScreenWidth, kScreenHeight), QSize(kLaptopWidth, kLaptopHeight),
                              kFullHdScreen, QSize(1920, 1200), QSize(1080, 1920)})
        QCOMPARE(PresenterMode::fontScaleOn(today), 1.6);
    QCOMPARE(PresenterMode::fontScaleOn(kUhdScreen), 3.2);
    QCOMPARE(PresenterMode::fontScaleOn(QSize(2560, 1440)), 1.6 * 4 / 3);
    QCOMPARE(PresenterMode::fontScaleOn(QSize(3440, 1440)), 1.6 * 4 / 3);  // ultra-wide: as tall as 1440
    QCOMPARE(PresenterMode::fontScaleOn(QSize(2160, 3840)), 1.6 * 2160 / 1920);  // portrait: as narrow as 2160
    QCOMPARE(PresenterMode::fontScaleOn(QSize(7680, 4320)), 6.4);
    QCOMPARE(PresenterMode::fontScaleOn(QSize(11520, 6480)), 6.4);  // a wall of screens: 8K's
}

// The same comparison presented on a 3840x2160 screen and on a 1920x1080 one:
// every text of the charts, the Scaling tab, the Classroom and its ring
// (each widget's font, what it paints, its chart's texts) at least 1.9 times
// as large on the first, as the screen is twice as large each way. Presenter
// mode doubles the font; 1.9 leaves room for pixel sizes rounding (19.2 px
// is 19, 38.4 is 38) and for a painted label shrunk to fit its bar.
void TestPresenterFocus::presenterTextTwiceAsLargeAt3840x2160()
{
    constexpr double kLeastGrowth = 1.9;
    saveRepeatedComparison();
    std::map<QString, double> fullHd;
    std::map<QString, double> uhd;
    presentedTextSizes(kFullHdScreen, fullHd);
    if (QTest::currentTestFailed())
        return;
    presentedTextSizes(kUhdScreen, uhd);
    if (QTest::currentTestFailed())
        return;
    QStringList tooSmall;
    int compared = 0;
    for (const auto& [where, pixels] : fullHd) {
        const auto large = uhd.find(where);
        if (large == uhd.end())
            continue;
        ++compared;
        if (large->second < kLeastGrowth * pixels)
            tooSmall << QStringLiteral("%1: %2 px at 1920x1080, %3 px at 3840x2160")
                            .arg(where)
                            .arg(pixels, 0, 'f', 1)
                            .arg(large->second, 0, 'f', 1);
    }
    // Nearly every text is on both screens (a few wrap or scroll differently).
    QVERIFY2(compared > 0.9 * double(fullHd.size()) && compared > 100,
             qPrintable(QStringLiteral("%1 texts of %2 compared").arg(compared).arg(fullHd.size())));
    QCOMPARE(tooSmall.join(QLatin1Char('\n')), QString());
}

// Presenting on a full-HD screen, the window moved to a 4K one: its text
// twice as large; back, as it was. Leaving presenter mode there: the normal size.
void TestPresenterFocus::presenterTextFollowsTheWindowToAnotherScreen()
{
    MainWindow window;
    const qreal normalPoints = window.font().pointSizeF();
    QVERIFY(showMaximizedOn(window, kFullHdScreen));
    auto* presenter = window.findChild<QAction*>(QStringLiteral("presenterAction"));
    auto* progress = window.findChild<QProgressBar*>(QStringLiteral("batchProgressBar"));
    QVERIFY(presenter && progress);
    presenter->trigger();
    QTRY_COMPARE(window.size(), kFullHdScreen);
    QCOMPARE(window.font().pointSizeF(), 1.6 * normalPoints);
    QCOMPARE(progress->font().pointSizeF(), 1.6 * normalPoints);

    QScreen* uhd = nullptr;
    QScreen* fullHd = window.screen();
    for (QScreen* screen : QGuiApplication::screens())
        if (screen->geometry().size() == kUhdScreen)
            uhd = screen;
    QVERIFY(uhd);
    window.setScreen(uhd);
    QTRY_COMPARE(window.font().pointSizeF(), 3.2 * normalPoints);
    QCOMPARE(progress->font().pointSizeF(), 3.2 * normalPoints);
    // As a window manager fits a full-screen window to its new screen: every text whole there.
    window.showNormal();
    window.showFullScreen();
    QTRY_COMPARE(window.size(), kUhdScreen);
    QTest::qWait(50);  // the layouts settle
    QTRY_COMPARE(textProblemsShown(window, kPresenterFloor, {}), QString());
    window.setScreen(fullHd);
    QTRY_COMPARE(window.font().pointSizeF(), 1.6 * normalPoints);

    window.setScreen(uhd);
    QTRY_COMPARE(window.font().pointSizeF(), 3.2 * normalPoints);
    presenter->trigger();
    QCOMPARE(window.font().pointSizeF(), normalPoints);
    QCOMPARE(progress->font().pointSizeF(), normalPoints);
}

// --presenter: presenter mode set before the window is shown, sized for the
// first screen (the projector's 1280x720); the window opens on the 4K screen:
// its text twice presenter mode's full-HD size.
void TestPresenterFocus::presenterTextSizedForTheScreenTheWindowOpensOn()
{
    MainWindow window;
    const qreal normalPoints = window.font().pointSizeF();
    window.setPresenterMode(true);
    QCOMPARE(window.screen()->geometry().size(), QSize(kScreenWidth, kScreenHeight));
    QCOMPARE(window.font().pointSizeF(), 1.6 * normalPoints);
    QVERIFY(showMaximizedOn(window, kUhdScreen));
    QCOMPARE(window.font().pointSizeF(), 3.2 * normalPoints);
}

// The offscreen platform's screen is 800x600 unless told otherwise: this
// test's is a projector's 1280x720.
int main(int argc, char* argv[])
{
    QTemporaryDir screens;
    if (qgetenv("QT_QPA_PLATFORM") == "offscreen" && screens.isValid()) {
        const QString config = screens.filePath(QStringLiteral("screen.json"));
        QFile file(config);
        if (!file.open(QIODevice::WriteOnly))
            return 1;
        file.write(QStringLiteral(R"({"screens": [{"name": "projector", "x": 0, "y": 0, "width": %1,
                                      "height": %2, "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1},
                                     {"name": "laptop", "x": %1, "y": 0, "width": %3,
                                      "height": %4, "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1},
                                     {"name": "small", "x": %5, "y": 0, "width": %6,
                                      "height": %7, "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1},
                                     {"name": "fullhd", "x": %8, "y": 0, "width": %9,
                                      "height": %10, "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1},
                                     {"name": "uhd", "x": %11, "y": 0, "width": %12,
                                      "height": %13, "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]})")
                           .arg(kScreenWidth)
                           .arg(kScreenHeight)
                           .arg(kLaptopWidth)
                           .arg(kLaptopHeight)
                           .arg(kScreenWidth + kLaptopWidth)
                           .arg(kSmallScreen.width())
                           .arg(kSmallScreen.height())
                           .arg(kScreenWidth + kLaptopWidth + kSmallScreen.width())
                           .arg(kFullHdScreen.width())
                           .arg(kFullHdScreen.height())
                           .arg(kScreenWidth + kLaptopWidth + kSmallScreen.width() + kFullHdScreen.width())
                           .arg(kUhdScreen.width())
                           .arg(kUhdScreen.height())
                           .toUtf8());
        file.close();
        qputenv("QT_QPA_PLATFORM", ("offscreen:configfile=" + config).toUtf8());
    }
    QApplication app(argc, argv);
    TestPresenterFocus test;
    return QTest::qExec(&test, argc, argv);
}

#include "test_presenter_focus.moc"
