// The loss chart's bounded-memory trace: a long run's points stay few, and
// averaging keeps what the curve says.
#include <QtTest>

#include <QSettings>
#include <QTemporaryDir>

#include <cmath>

#include "decimated_trace.h"
#include "x_axis_choice.h"

#include <QAction>

class TestDecimatedTrace : public QObject {
    Q_OBJECT

private slots:
    void shortRunsKeepEveryBatch();
    void longRunsStayWithinTwiceTheLimit();
    void smoothingFollowsTheLossWithALag();
    void smoothingIsTensorBoardsDebiasedAverage();
    void stepsCountTheGlobalBatches();
    void epochEndsSitAtTheirStepsSecondsOrEpoch();
    void theXAxisChoiceIsRememberedAndReadsTheOlderSwitch();
};

// TensorBoard's values for losses 1, 0, 0 at weight 0.5: each the average of
// those so far, debiased by 1 - 0.5^n (1, 1/3, 1/7).
void TestDecimatedTrace::smoothingIsTensorBoardsDebiasedAverage()
{
    DecimatedTrace trace(100);
    for (int i = 0; i < 3; ++i)
        trace.append({double(i), double(i), i == 0 ? 1.0 : 0.0});
    const QList<QPointF> smoothed = trace.points(XAxisMode::epochs, 0.5);
    QCOMPARE(smoothed.size(), 3);
    QCOMPARE(smoothed[0].y(), 1.0);
    QVERIFY(std::abs(smoothed[1].y() - 1.0 / 3) < 1e-12);
    QVERIFY(std::abs(smoothed[2].y() - 1.0 / 7) < 1e-12);
}

// Issue 42: the step x axis is the global optimizer step, which goes on
// across epochs; decimated buckets keep step = epoch x steps per epoch.
void TestDecimatedTrace::stepsCountTheGlobalBatches()
{
    const dp::BatchLossPoint third = dp::batch_loss_point({2, 3, 10, 0.5}, 4.0);
    QCOMPARE(third.step, 13.0);
    QCOMPARE(third.epoch, 1.3);
    QCOMPARE(third.seconds, 4.0);
    DecimatedTrace trace(4);  // buckets merge many times over 3 x 100 batches
    dp::BatchLossTrace record(4);
    for (int epoch = 1; epoch <= 3; ++epoch)
        for (int batch = 1; batch <= 100; ++batch) {
            trace.append(dp::batch_loss_point({epoch, batch, 100, 1.0}, 0));
            record.append(dp::batch_loss_point({epoch, batch, 100, 1.0}, 0));
        }
    const QList<QPointF> steps = trace.points(XAxisMode::steps);
    QVERIFY(steps.size() <= 2 * 4 + 1);
    QVERIFY(steps.back().x() > 250 && steps.back().x() <= 300);  // the last bucket's mean
    for (const dp::BatchLossPoint& point : record.points())
        QVERIFY(std::abs(point.step - 100 * point.epoch) < 1e-9);
    QCOMPARE(dp::steps_per_epoch(record.points()), 100.0);
    QCOMPARE(dp::steps_per_epoch({}), 0.0);
}

void TestDecimatedTrace::epochEndsSitAtTheirStepsSecondsOrEpoch()
{
    QCOMPARE(epochEndX(XAxisMode::epochs, 3, 12.5, 40), 3.0);
    QCOMPARE(epochEndX(XAxisMode::seconds, 3, 12.5, 40), 12.5);
    QCOMPARE(epochEndX(XAxisMode::steps, 3, 12.5, 40), 120.0);
    QVERIFY(std::isnan(epochEndX(XAxisMode::steps, 3, 12.5, 0)));  // steps not known
}

void TestDecimatedTrace::theXAxisChoiceIsRememberedAndReadsTheOlderSwitch()
{
    QTemporaryDir dir;
    QSettings settings(dir.filePath(QStringLiteral("settings.ini")), QSettings::IniFormat);
    QCOMPARE(XAxisChoice::remembered(settings), XAxisMode::epochs);
    settings.setValue(QStringLiteral("view/seconds_axis"), true);  // before steps
    QCOMPARE(XAxisChoice::remembered(settings), XAxisMode::seconds);
    XAxisChoice::remember(settings, XAxisMode::steps);
    QCOMPARE(XAxisChoice::remembered(settings), XAxisMode::steps);
    XAxisChoice choice;
    QList<XAxisMode> changes;
    connect(&choice, &XAxisChoice::modeChanged, this, [&](XAxisMode mode) { changes << mode; });
    choice.actions()[1]->trigger();
    QCOMPARE(choice.mode(), XAxisMode::steps);
    QVERIFY(choice.actions()[1]->isChecked() && !choice.actions()[0]->isChecked());
    QCOMPARE(changes, QList<XAxisMode>{XAxisMode::steps});
}

void TestDecimatedTrace::shortRunsKeepEveryBatch()
{
    DecimatedTrace trace(100);
    for (int i = 1; i <= 50; ++i)
        trace.append({i / 50.0, i * 0.1, double(i)});
    const QList<QPointF> points = trace.points(XAxisMode::epochs);
    QCOMPARE(points.size(), 50);
    QCOMPARE(points.front(), QPointF(0.02, 1));
    QCOMPARE(points.back(), QPointF(1, 50));
    QCOMPARE(trace.points(XAxisMode::seconds).back().x(), 5.0);
}

void TestDecimatedTrace::longRunsStayWithinTwiceTheLimit()
{
    DecimatedTrace trace(100);
    const int batches = 100'000;
    double sum = 0;
    for (int i = 0; i < batches; ++i) {
        const double loss = 2.0 - double(i) / batches;
        sum += loss;
        trace.append({double(i), double(i), loss});
    }
    const QList<QPointF> points = trace.points(XAxisMode::epochs);
    QVERIFY(points.size() <= 2 * 100 + 1);
    QVERIFY(points.size() >= 100);
    QVERIFY(trace.samplesPerPoint() > 1);
    // Averaging a straight line keeps it on the line, in order.
    for (const QPointF& point : points)
        QVERIFY(qAbs(point.y() - (2.0 - point.x() / batches)) < 1e-9);
    QVERIFY(std::is_sorted(points.begin(), points.end(),
                           [](const QPointF& a, const QPointF& b) { return a.x() < b.x(); }));
}

void TestDecimatedTrace::smoothingFollowsTheLossWithALag()
{
    DecimatedTrace trace(1000);
    for (int i = 0; i < 10; ++i)
        trace.append({double(i), double(i), 1.0});
    for (int i = 10; i < 20; ++i)
        trace.append({double(i), double(i), 0.0});
    const QList<QPointF> raw = trace.points(XAxisMode::epochs);
    const QList<QPointF> smoothed = trace.points(XAxisMode::epochs, 0.9);
    QCOMPARE(raw[10].y(), 0.0);
    QCOMPARE(smoothed[0].y(), 1.0);   // debiased: the first point is its own loss
    QCOMPARE(smoothed[9].y(), 1.0);
    QVERIFY(smoothed[10].y() > 0.5);  // the average lags the step down
    QVERIFY(smoothed[19].y() < smoothed[10].y());
    // A lighter smoothing follows the step sooner; none is the raw loss.
    QVERIFY(trace.points(XAxisMode::epochs, 0.5)[12].y() < smoothed[12].y());
    QCOMPARE(trace.points(XAxisMode::epochs, 0.0), raw);
}

QTEST_MAIN(TestDecimatedTrace)  // XAxisChoice's actions want a GUI application
#include "test_decimated_trace.moc"
