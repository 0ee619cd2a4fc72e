// The loss chart's test loss and its y axis' least span, and the board's
// legend as a control: a click hides a run from every chart, a second shows
// it, hovering picks out its lines. Charts on a board (offscreen), fed run
// records: no training.
#include <QLineSeries>
#include <QValueAxis>
#include <QtTest>

#include <cmath>

#include "chart_board.h"
#include "epoch_metric_chart.h"
#include "loss_chart.h"
#include "run_legend.h"
#include "run_palette.h"
#include "shown_board.h"
#include "record/run_record.h"

namespace {

// A finished 1-device run of `losses.size()` epochs: train loss losses[i],
// test loss losses[i] + 0.01 (NaN: not measured), 2 seconds each.
dp::RunRecord runWithLosses(const std::string& id, const std::vector<double>& losses)
{
    dp::RunRecord record;
    record.id = id;
    record.status = dp::RunStatus::finished;
    record.config.epochs = int(losses.size());
    record.config.devices = {"cpu:0"};
    for (std::size_t i = 0; i < losses.size(); ++i) {
        dp::EpochMetrics epoch{.epoch = int(i) + 1, .train_loss = losses[i], .train_acc = 0.5,
                               .test_acc = 0.5, .seconds = 2.0};
        epoch.test_loss = losses[i] + 0.01;
        record.epochs.push_back(epoch);
    }
    return record;
}


QValueAxis* yAxisOf(const RunChartView& view)
{
    return qobject_cast<QValueAxis*>(view.chart()->axes(Qt::Vertical).value(0));
}

QPoint drawnAt(const RunChartView& view, const QLineSeries& series, QPointF position)
{
    auto* mapped = const_cast<QLineSeries*>(&series);
    return view.mapFromScene(view.chart()->mapToScene(view.chart()->mapToPosition(position, mapped)));
}

// Every line of run `id` on the accuracy and loss charts is shown (or not).
bool runShown(ShownBoard& shown, const std::string& id)
{
    const QString key = QString::fromStdString(id);
    const LossChart* loss = shown.board.lossChart();
    return shown.chart<EpochMetricChart>("accuracyChart")->lineOf(id, 0)->isVisible() && shown.chart<EpochMetricChart>("accuracyChart")->lineOf(id, 1)->isVisible()
        && loss->lineOf(key)->isVisible() && loss->lineOf(LossChart::testLossKey(key))->isVisible();
}
bool runHidden(ShownBoard& shown, const std::string& id)
{
    const QString key = QString::fromStdString(id);
    const LossChart* loss = shown.board.lossChart();
    return !shown.chart<EpochMetricChart>("accuracyChart")->lineOf(id, 0)->isVisible() && !shown.chart<EpochMetricChart>("accuracyChart")->lineOf(id, 1)->isVisible()
        && !loss->lineOf(key)->isVisible() && !loss->lineOf(LossChart::testLossKey(key))->isVisible();
}

}  // namespace

class TestUiLossLegend : public QObject {
    Q_OBJECT

private slots:
    // A dot at each epoch's end, at its test loss, in the run's colour, read
    // out as "test loss"; at the epoch's training seconds on a seconds axis.
    void lossChartDrawsTheTestLossAtEachEpochEnd()
    {
        ShownBoard shown;
        const dp::RunRecord run = runWithLosses("run-1", {1.5, 0.9, 0.6});
        shown.board.setRunVisible(run, runColor(0), true);
        LossChart* loss = shown.board.lossChart();
        const QLineSeries* test = loss->lineOf(LossChart::testLossKey(QStringLiteral("run-1")));
        QVERIFY(test && test->isVisible());
        QCOMPARE(test->count(), 3);
        QCOMPARE(test->at(0), QPointF(1, 1.51));
        QCOMPARE(test->at(2), QPointF(3, 0.61));
        QCOMPARE(test->pen().color(), runColor(0));
        QTest::mouseMove(loss->viewport(), drawnAt(*loss, *test, test->at(1)));
        QVERIFY2(loss->shownReadout().contains(QStringLiteral("test loss 0.91")), qPrintable(loss->shownReadout()));

        shown.board.setXAxisMode(XAxisMode::seconds);
        QCOMPARE(test->at(2), QPointF(6, 0.61));

        // Runs recorded before the test loss was kept have no test-loss line.
        dp::RunRecord older = runWithLosses("run-2", {1.0, 0.8});
        for (dp::EpochMetrics& epoch : older.epochs)
            epoch.test_loss = std::numeric_limits<double>::quiet_NaN();
        shown.board.setRunVisible(older, runColor(1), true);
        QVERIFY(loss->lineOf(QStringLiteral("run-2")));
        QVERIFY(!loss->lineOf(LossChart::testLossKey(QStringLiteral("run-2"))));

        // Unchecked, both of the run's lines go.
        shown.board.setRunVisible(run, runColor(0), false);
        QVERIFY(!test->isVisible());
        QVERIFY(!loss->lineOf(QStringLiteral("run-1"))->isVisible());
    }

    // 10% of the top value or 0.1, whichever is larger, from at least 0.
    void lossAxisMinimumSpanIsATenthOrATenth()
    {
        const RunChartView::Span chance = lossAxisMinimumSpan(2.31);
        QCOMPARE(chance.max, 2.31);
        QVERIFY(std::abs(chance.min - (2.31 - 0.231)) < 1e-12);
        const RunChartView::Span small = lossAxisMinimumSpan(0.5);
        QVERIFY(std::abs(small.min - 0.4) < 1e-12);
        QCOMPARE(lossAxisMinimumSpan(0.05).min, 0.0);
    }

    // A loss between 2.29 and 2.31 keeps to the top of an axis at least
    // 0.231 tall; a loss falling from 2.3 to 0.5 gets its own range.
    void nearlyFlatLossDoesNotFillTheAxis()
    {
        ShownBoard shown;
        shown.board.setRunVisible(runWithLosses("flat", {2.30, 2.29, 2.295}), runColor(0), true);
        const QValueAxis* y = yAxisOf(*shown.board.lossChart());
        QVERIFY2(y->max() - y->min() >= 0.231 - 1e-9, qPrintable(QStringLiteral("%1 to %2").arg(y->min()).arg(y->max())));
        QVERIFY(y->min() >= 0 && y->max() >= 2.30);

        shown.board.setRunVisible(runWithLosses("flat", {2.30, 2.29, 2.295}), runColor(0), false);
        shown.board.setRunVisible(runWithLosses("falling", {2.3, 1.0, 0.5}), runColor(1), true);
        QVERIFY(y->min() <= 0.5 && y->max() >= 2.31);
    }

    // A click on a run's entry hides its lines on every chart and greys the
    // entry; a second click shows them. Unchecking and checking the run
    // shows it again too.
    void legendClickHidesARunAndASecondShowsIt()
    {
        ShownBoard shown;
        const dp::RunRecord first = runWithLosses("run-a", {1.0, 0.8}), second = runWithLosses("run-b", {1.1, 0.7});
        shown.board.setRunVisible(first, runColor(0), true);
        shown.board.setRunVisible(second, runColor(1), true);
        RunLegend* legend = shown.chart<RunLegend>("runLegend");
        QVERIFY(runShown(shown, "run-a") && runShown(shown, "run-b"));

        // The entries are in id order: run-a's swatch starts the first line.
        const QPoint firstEntry(6, legend->fontMetrics().height() / 2);
        QTest::mouseClick(legend, Qt::LeftButton, {}, firstEntry);
        QVERIFY(legend->isHidden(QStringLiteral("run-a")));
        QVERIFY(runHidden(shown, "run-a"));
        QVERIFY(runShown(shown, "run-b"));
        QVERIFY(legend->text().contains(QStringLiteral("<s>")));
        QCOMPARE(int(legend->entries().size()), 2);  // still listed, to be shown again

        QTest::mouseClick(legend, Qt::LeftButton, {}, firstEntry);
        QVERIFY(!legend->isHidden(QStringLiteral("run-a")));
        QVERIFY(runShown(shown, "run-a"));
        QVERIFY(!legend->text().contains(QStringLiteral("<s>")));

        legend->toggleHidden(QStringLiteral("run-b"));
        QVERIFY(runHidden(shown, "run-b"));
        shown.board.setRunVisible(second, runColor(1), false);
        shown.board.setRunVisible(second, runColor(1), true);
        QVERIFY(!legend->isHidden(QStringLiteral("run-b")));
        QVERIFY(runShown(shown, "run-b"));
    }

    // Hovering an entry draws that run's lines thicker and fades the others'.
    void legendHoverHighlightsARun()
    {
        ShownBoard shown;
        shown.board.setRunVisible(runWithLosses("run-a", {1.0, 0.8}), runColor(0), true);
        shown.board.setRunVisible(runWithLosses("run-b", {1.1, 0.7}), runColor(1), true);
        const QLineSeries* a = shown.chart<EpochMetricChart>("accuracyChart")->lineOf("run-a", 0);
        const QLineSeries* b = shown.board.lossChart()->lineOf(QStringLiteral("run-b"));
        const double width = a->pen().widthF();
        emit shown.chart<RunLegend>("runLegend")->linkHovered(QStringLiteral("run:run-a"));
        QVERIFY(a->pen().widthF() > width);
        QVERIFY(b->pen().color().alpha() < 128);
        emit shown.chart<RunLegend>("runLegend")->linkHovered(QString());
        QCOMPARE(a->pen().widthF(), width);
        QCOMPARE(b->pen().color().alpha(), 255);
        // Leaving the legend from an entry ends the highlight too.
        emit shown.chart<RunLegend>("runLegend")->linkHovered(QStringLiteral("run:run-b"));
        QVERIFY(a->pen().color().alpha() < 128);
        QEvent leave(QEvent::Leave);
        QApplication::sendEvent(shown.chart<RunLegend>("runLegend"), &leave);
        QCOMPARE(a->pen().color().alpha(), 255);
        QCOMPARE(b->pen().widthF(), width);
    }
};

QTEST_MAIN(TestUiLossLegend)
#include "test_ui_loss_legend.moc"
