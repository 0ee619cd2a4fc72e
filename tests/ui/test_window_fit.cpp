// The window on every screen, on the offscreen platform: it fits a 1024x768
// screen, the settings keep every field whole whatever notes appear,
// presenter mode fills the screen and gives the window back as it was,
// thirty runs' legend leaves the plots their height, and a row of controls
// too long for its width wraps rather than squeezes them.
#include <QAbstractSpinBox>
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QGroupBox>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QLabel>
#include <QMenuBar>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QStackedWidget>
#include <QtTest>

#include "chart_board.h"
#include "field_note.h"
#include "flow_layout.h"
#include "main_window.h"
#include "run_config_panel.h"
#include "run_legend.h"
#include "shown_board.h"
#include "workbench_sandbox.h"

namespace {

// The settings fields a user edits: spin boxes, combos and check boxes.
QList<QWidget*> settingsFields(const RunConfigPanel& panel)
{
    QList<QWidget*> fields;
    for (QWidget* widget : panel.findChildren<QWidget*>()) {
        const bool field = qobject_cast<QAbstractSpinBox*>(widget) || qobject_cast<QComboBox*>(widget)
                        || qobject_cast<QCheckBox*>(widget);
        if (field && widget->isVisibleTo(&panel))
            fields.append(widget);
    }
    return fields;
}

// Why a field of `panel` is not shown whole (squeezed below its size hint,
// outside its group, or under another field or a note), or empty.
QString hiddenField(const RunConfigPanel& panel)
{
    QList<QWidget*> shown = settingsFields(panel);
    for (FieldNote* note : panel.findChildren<FieldNote*>()) {
        if (note->isVisibleTo(&panel))
            shown.append(note);
    }
    for (QWidget* field : settingsFields(panel)) {
        const QRect inPanel(field->mapTo(&panel, QPoint(0, 0)), field->size());
        if (field->height() < field->sizeHint().height())
            return QStringLiteral("%1 is %2 px high of %3").arg(field->objectName()).arg(field->height())
                    .arg(field->sizeHint().height());
        const auto* group = qobject_cast<QGroupBox*>(field->parentWidget());
        if (group && !QRect(group->mapTo(&panel, QPoint(0, 0)), group->size()).contains(inPanel))
            return QStringLiteral("%1 sticks out of %2").arg(field->objectName(), group->title());
        for (const QWidget* other : shown) {
            if (other != field && QRect(other->mapTo(&panel, QPoint(0, 0)), other->size()).intersects(inPanel))
                return QStringLiteral("%1 overlaps %2").arg(field->objectName(), other->objectName());
        }
    }
    return {};
}

}  // namespace

class TestWindowFit : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void windowFitsA1024By768Screen();
    void fieldNotesNeverHideAField();
    void presenterModeFillsTheScreenAndGivesTheWindowBack();
    void presenterModeShowsTheSettingsHintsAndEnlargesTheMenu();
    void anEmptyQueueSaysHowRunsGetThere();
    void thirtyRunsScrollInTheLegend();
    void aRowTooLongForItsWidthWraps();

private:
    QTemporaryDir scratch_;
    int dataDirs_ = 0;
};

void TestWindowFit::initTestCase()
{
    QVERIFY(scratch_.isValid());
    keepWorkbenchSettingsIn(scratch_, "test_window_fit");
}

// Every test starts with default settings and an empty history.
void TestWindowFit::init()
{
    startWithEmptySettingsAndHistory(scratch_, dataDirs_);
}

// A 1024x768 screen (less a panel) holds the whole window: the charts go two
// a row beside the settings rather than pushing the window wider.
void TestWindowFit::windowFitsA1024By768Screen()
{
    MainWindow window;
    QVERIFY2(window.minimumSizeHint().width() <= 1024 && window.minimumSizeHint().height() <= 700,
             qPrintable(QStringLiteral("minimum %1x%2").arg(window.minimumSizeHint().width())
                                .arg(window.minimumSizeHint().height())));
    window.resize(1024, 700);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.minimumSize().width() <= 1024 && window.minimumSize().height() <= 700);
    QTRY_COMPARE(window.size(), QSize(1024, 700));
    auto* charts = window.findChild<ChartBoard*>();
    QVERIFY(charts);
    QTRY_COMPARE(charts->chartsPerRow(), 2);
    QVERIFY(charts->mapTo(&window, QPoint(charts->width(), 0)).x() <= window.width());
    QVERIFY(charts->width() >= charts->minimumSizeHint().width());

    // Wide again, three a row.
    window.resize(1600, 900);
    QTRY_COMPARE(charts->chartsPerRow(), 3);
}

// A problem or a hint under a Training field makes its box taller: the
// Precision row under them stays whole (it used to be squeezed away).
void TestWindowFit::fieldNotesNeverHideAField()
{
    MainWindow window;
    window.resize(1024, 700);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto* panel = window.findChild<RunConfigPanel*>();
    auto* precision = window.findChild<QComboBox*>(QStringLiteral("precisionCombo"));
    QVERIFY(panel && precision);
    QTRY_COMPARE(hiddenField(*panel), QString());

    // LeNet for 1 epoch of 512 images: "too few steps", a hint under the batch size.
    dp::TrainConfig config = window.runConfig();
    config.model = "lenet";
    config.epochs = 1;
    config.limit_train = 512;
    window.setRunConfig(config);
    auto* batchNote = window.findChild<FieldNote*>(QStringLiteral("batch_sizeNote"));
    QVERIFY(batchNote && batchNote->isVisibleTo(panel) && batchNote->kind() == FieldNote::Kind::hint);
    QTRY_COMPARE(hiddenField(*panel), QString());

    // tf32 on CPUs: a problem under the precision; then fp32 again, the hint back.
    precision->setCurrentIndex(precision->findData(QStringLiteral("tf32")));
    auto* precisionNote = window.findChild<FieldNote*>(QStringLiteral("precisionNote"));
    QVERIFY(precisionNote && precisionNote->isVisibleTo(panel));
    QTRY_COMPARE(hiddenField(*panel), QString());
    precision->setCurrentIndex(precision->findData(QStringLiteral("fp32")));
    QVERIFY(batchNote->isVisibleTo(panel));
    QTRY_COMPARE(hiddenField(*panel), QString());

    // A negative learning rate: a problem under it, above the precision.
    config.lr = -0.1f;
    window.setRunConfig(config);
    auto* lrNote = window.findChild<FieldNote*>(QStringLiteral("lrNote"));
    QVERIFY(lrNote && lrNote->isVisibleTo(panel) && lrNote->kind() == FieldNote::Kind::problem);
    QTRY_COMPARE(hiddenField(*panel), QString());
    const auto* training = qobject_cast<QGroupBox*>(precision->parentWidget());
    QVERIFY(training);
    QVERIFY(precision->geometry().bottom() <= training->contentsRect().bottom());
}

// F11 fills the screen; F11 or Esc gives back the window's state and both
// splitters' sizes as they were.
void TestWindowFit::presenterModeFillsTheScreenAndGivesTheWindowBack()
{
    MainWindow window;
    window.resize(1200, 760);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto* presenter = window.findChild<QAction*>(QStringLiteral("presenterAction"));
    auto* settingsSplitter = window.findChild<QSplitter*>(QStringLiteral("settingsSplitter"));
    auto* viewSplitter = window.findChild<QSplitter*>(QStringLiteral("rightSplitter"));
    QVERIFY(presenter && settingsSplitter && viewSplitter);
    QVERIFY(presenter->shortcuts().contains(QKeySequence(Qt::Key_F11)));
    settingsSplitter->setSizes({settingsSplitter->widget(0)->minimumWidth() + 20, 800});
    viewSplitter->setSizes({400, 300});
    const QList<int> settingsSizes = settingsSplitter->sizes();
    const QList<int> viewSizes = viewSplitter->sizes();

    for (const QKeySequence& leave : {QKeySequence(Qt::Key_F11), QKeySequence(Qt::Key_Escape)}) {
        presenter->trigger();
        QVERIFY(window.isFullScreen());
        QVERIFY(!settingsSplitter->widget(0)->isVisible());
        QVERIFY(presenter->shortcuts().contains(leave));
        presenter->trigger();  // what either key does
        QVERIFY(!presenter->isChecked());
        QVERIFY(!window.isFullScreen());
        QTRY_COMPARE(window.size(), QSize(1200, 760));
        QCOMPARE(settingsSplitter->sizes(), settingsSizes);
        QCOMPARE(viewSplitter->sizes(), viewSizes);
    }
    // Esc is presenter mode's only: elsewhere it belongs to the fields.
    QVERIFY(!presenter->shortcuts().contains(QKeySequence(Qt::Key_Escape)));
}

// Presenter mode hides the settings panel, not what it says: its hints
// ("too few steps") show over the charts; the menu bar grows with the rest.
void TestWindowFit::presenterModeShowsTheSettingsHintsAndEnlargesTheMenu()
{
    MainWindow window;
    window.resize(1280, 720);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    dp::TrainConfig config = window.runConfig();
    config.model = "lenet";
    config.epochs = 1;
    config.limit_train = 512;
    window.setRunConfig(config);
    auto* presenter = window.findChild<QAction*>(QStringLiteral("presenterAction"));
    auto* hints = window.findChild<QLabel*>(QStringLiteral("presenterHints"));
    QVERIFY(presenter && hints);
    QVERIFY(!hints->isVisible());  // the panel shows them itself
    const qreal menuPoints = window.menuBar()->font().pointSizeF();

    presenter->trigger();
    QVERIFY(hints->isVisible());
    QVERIFY2(hints->text().contains(QStringLiteral("these settings make")), qPrintable(hints->text()));
    QVERIFY(window.menuBar()->font().pointSizeF() > menuPoints * 1.4);
    // Settings without a hint: the banner goes.
    config.limit_train = 0;
    config.epochs = 10;
    window.setRunConfig(config);
    QVERIFY(!hints->isVisible());
    config.limit_train = 512;
    config.epochs = 1;
    window.setRunConfig(config);
    QVERIFY(hints->isVisible());

    presenter->trigger();
    QVERIFY(!hints->isVisible());
    QCOMPARE(window.menuBar()->font().pointSizeF(), menuPoints);
}

// The Queue tab is not a blank list on first launch; the loss axis switch
// says what it changes.
void TestWindowFit::anEmptyQueueSaysHowRunsGetThere()
{
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto* empty = window.findChild<QLabel*>(QStringLiteral("queueEmptyLabel"));
    QVERIFY(empty);
    QCOMPARE(empty->text(), QStringLiteral("No runs waiting: Start while a run trains queues the next"));
    auto* page = qobject_cast<QStackedWidget*>(empty->parentWidget());
    QVERIFY(page);
    QCOMPARE(page->currentWidget(), empty);
    auto* logScale = window.findChild<QPushButton*>(QStringLiteral("logLossButton"));
    QVERIFY(logScale);
    QCOMPARE(logScale->text(), QStringLiteral("Log scale"));
}

// Thirty checked runs: the legend shows three lines of them and scrolls to
// the rest, rather than taking ten lines from the plots.
void TestWindowFit::thirtyRunsScrollInTheLegend()
{
    ShownBoard shown;
    auto* legend = shown.chart<RunLegend>("runLegend");
    auto* legendArea = shown.chart<QScrollArea>("runLegendScroll");
    QVERIFY(legend && legendArea);
    QVERIFY(!legendArea->isVisible());  // no runs, no legend
    for (int i = 0; i < 30; ++i) {
        dp::RunRecord record;
        record.id = "run-";
        record.id += std::to_string(i);
        record.status = dp::RunStatus::finished;
        record.config.epochs = 3;
        record.config.batch_size = 32 << (i % 5);
        record.config.devices = {"cpu:0"};
        record.epochs.push_back({1, 1.0, 0.6, 0.55, 2.0});
        shown.board.updateRun(record, QColor::fromHsv(i * 12, 200, 200));
    }
    QVERIFY(legendArea->isVisible());
    const int line = legend->heightForWidth(QWIDGETSIZE_MAX);
    QTRY_VERIFY(legend->heightForWidth(legendArea->width()) > 5 * line);  // ten lines or so, whole
    QCOMPARE(legendArea->height(), 3 * line);
    QTRY_VERIFY(legendArea->verticalScrollBar()->maximum() > 0);  // the rest a scroll away
    auto* accuracy = shown.chart<QWidget>("accuracyChart");
    QTRY_VERIFY2(accuracy->height() >= (shown.board.height() - 3 * line) / 2 - 10,
                 qPrintable(QStringLiteral("%1 px").arg(accuracy->height())));
}

// FlowLayout: one line where the width holds every group at its preferred
// width, more lines where it does not, none squeezed; the height follows.
void TestWindowFit::aRowTooLongForItsWidthWraps()
{
    QWidget row;
    auto* flow = new FlowLayout(&row);
    flow->setContentsMargins(0, 0, 0, 0);
    flow->setSpacing(6);
    auto* first = new QPushButton(QStringLiteral("A first button with a long text"));
    auto* second = new QPushButton(QStringLiteral("A second one"));
    auto* label = new QLabel(QStringLiteral("Link"));
    auto* combo = new QComboBox;
    combo->addItem(QStringLiteral("This machine's threads (measured)"));
    flow->addWidget(first);
    flow->addWidget(second);
    flow->addGroup({label, combo});
    const int oneLine = flow->sizeHint().width();
    const QWidget* group = combo->parentWidget();
    QCOMPARE(oneLine, first->sizeHint().width() + second->sizeHint().width() + group->sizeHint().width() + 2 * 6);

    row.resize(oneLine, flow->heightForWidth(oneLine));
    row.show();
    QVERIFY(QTest::qWaitForWindowExposed(&row));
    QTRY_COMPARE(combo->y(), first->y());  // one line, the label beside its combo
    QCOMPARE(row.height(), std::max({first->sizeHint().height(), group->sizeHint().height()}));

    // As narrow as the widest item: more lines, each item whole at its
    // preferred width and inside the row, the label still beside its combo.
    const int narrow = flow->minimumSize().width();
    QCOMPARE(narrow, std::max({first->sizeHint().width(), second->sizeHint().width(), group->sizeHint().width()}));
    row.resize(narrow, flow->heightForWidth(narrow));
    QTRY_VERIFY(group->y() > first->y());
    QVERIFY(std::abs(label->geometry().center().y() - combo->geometry().center().y()) <= 2);
    for (const QWidget* item : {static_cast<const QWidget*>(first), static_cast<const QWidget*>(second), group}) {
        QCOMPARE(item->width(), item->sizeHint().width());
        QVERIFY(item->x() + item->width() <= narrow);
    }
    QCOMPARE(row.height(), flow->heightForWidth(narrow));
    QVERIFY(flow->heightForWidth(narrow) > 2 * first->sizeHint().height());
}

QTEST_MAIN(TestWindowFit)
#include "test_window_fit.moc"
