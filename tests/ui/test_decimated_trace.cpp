// The loss chart's bounded-memory trace: a long run's points stay few, and
// averaging keeps what the curve says.
#include <QtTest>

#include "decimated_trace.h"

class TestDecimatedTrace : public QObject {
    Q_OBJECT

private slots:
    void shortRunsKeepEveryBatch();
    void longRunsStayWithinTwiceTheLimit();
    void smoothingFollowsTheLossWithALag();
};

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

QTEST_GUILESS_MAIN(TestDecimatedTrace)
#include "test_decimated_trace.moc"
