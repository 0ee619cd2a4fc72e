// The speedup chart's measured points (issue 30): each N-device run in its
// own colour, a repeated comparison at its median with its range as an error
// bar, and the ceiling of devices that take turns on fewer cores.
#include <QLineSeries>
#include <QtTest>

#include "speedup_chart.h"

class TestSpeedupChart : public QObject {
    Q_OBJECT

private slots:
    void eachRunInItsOwnColourWithItsRange()
    {
        SpeedupChart chart;
        const QColor green(0x2c, 0xa0, 0x2c), red(0xd6, 0x27, 0x28);
        chart.setMeasurements({{"run-2", "LeNet · 2× cpu", green, 2, 1.9, 0, 0, 0},
                               {"group/2", "LeNet · 2× cpu (median of 3 repeats)", red, 2, 1.95,
                                1.88, 2.02, 0}});
        QCOMPARE(chart.measurementCount(), 2);
        const QLineSeries* single = chart.lineOf(QStringLiteral("run-2"));
        QVERIFY(single);
        QCOMPARE(single->color(), green);
        QCOMPARE(single->points().back(), QPointF(2, 1.9));
        QVERIFY(!chart.lineOf(QStringLiteral("run-2/range")));  // one run: no range
        const QLineSeries* range = chart.lineOf(QStringLiteral("group/2/range"));
        QVERIFY(range);
        QCOMPARE(range->color(), red);
        QCOMPARE(range->points(), (QList<QPointF>{{2, 1.88}, {2, 2.02}}));
        QVERIFY(!chart.lineOf(QStringLiteral("ceiling")));  // a core each: none

        // Gone from the measurements, gone from the chart, range and all.
        chart.setMeasurements({{"run-2", "LeNet · 2× cpu", green, 2, 1.9, 0, 0, 0}});
        QVERIFY(!chart.lineOf(QStringLiteral("group/2")));
        QVERIFY(!chart.lineOf(QStringLiteral("group/2/range")));
    }

    // 4 devices on 2 cores: the ceiling rises as y = x to 2, then stays.
    void devicesSharingCoresDrawTheirCeiling()
    {
        SpeedupChart chart;
        chart.setMeasurements({{"run-4", "LeNet · 4× cpu", Qt::blue, 4, 1.02, 0, 0, 2}});
        const QLineSeries* ceiling = chart.lineOf(QStringLiteral("ceiling"));
        QVERIFY(ceiling);
        QCOMPARE(ceiling->points(), (QList<QPointF>{{1, 1}, {2, 2}, {4, 2}}));
        chart.setMeasurements({{"run-4", "LeNet · 4× cpu", Qt::blue, 4, 3.5, 0, 0, 0}});
        QVERIFY(!chart.lineOf(QStringLiteral("ceiling")));
    }
};

QTEST_MAIN(TestSpeedupChart)
#include "test_speedup_chart.moc"
