// How a comparison is drawn (issue 30): the speedup chart's measured points,
// each N-device run in its own colour, a repeated comparison at its median
// with its range as an error bar, the ceiling of devices that take turns on
// fewer cores; and a gap inside the noise drawn without shares.
#include <QLineSeries>
#include <QtTest>

#include "comparison_summary_card.h"
#include "gap_waterfall_chart.h"
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
        QCOMPARE(ceiling->name(), QStringLiteral("ceiling of 2 cores"));  // a plural, not "core(s)"
        chart.setMeasurements({{"run-1c", "LeNet · 2× cpu", Qt::blue, 2, 0.9, 0, 0, 1}});
        QCOMPARE(chart.lineOf(QStringLiteral("ceiling"))->name(), QStringLiteral("ceiling of 1 core"));
        chart.setMeasurements({{"run-4", "LeNet · 4× cpu", Qt::blue, 4, 3.5, 0, 0, 0}});
        QVERIFY(!chart.lineOf(QStringLiteral("ceiling")));
    }

    // Epochs that vary by 0.3 s leave a 0.1 s gap unexplained: no part gets a
    // share of it, on the waterfall or the card, which says "within noise".
    void aGapInsideTheNoiseGetsNoShares()
    {
        dp::SpeedupGap gap;
        gap.devices = 2;
        gap.ideal = 1.0;
        gap.measured = 1.1;
        gap.noise = 0.3;
        gap.parts = {{"compute on smaller per-device batches", "compute", "", 0.08},
                     {"all-reduce not hidden behind backward", "all-reduce", "", 0.02}};
        GapWaterfallChart waterfall;
        waterfall.setGap(gap, QStringLiteral("two"));
        QVERIFY(waterfall.hasGap());
        QVERIFY(!waterfall.hasGapToSplit());
        for (const GapWaterfallChart::Bar& bar : waterfall.bars())
            QCOMPARE(bar.share, 0.0);
        QVERIFY2(waterfall.caption().startsWith(QStringLiteral("within noise")), qPrintable(waterfall.caption()));

        dp::RunRecord one, two;
        one.config.devices = {"cpu:0"};
        two.config.devices = {"cpu:0", "cpu:1"};
        std::vector<RunComparison> comparisons(2);
        comparisons[0].speedup = comparisons[0].efficiency = 1.0;
        comparisons[1].speedup = 1.0 / 1.1 * 2;
        comparisons[1].efficiency = 1.0 / 1.1;
        comparisons[1].gap = gap;
        const QString card = ComparisonSummaryCard::summaryText({one, two}, comparisons);
        QVERIFY2(!card.contains(QStringLiteral("Why not")), qPrintable(card));
        QVERIFY2(card.contains(QStringLiteral("Within noise")), qPrintable(card));
        QVERIFY(!card.contains(QLatin1Char('%') + QStringLiteral(" of the gap")));
    }
};

QTEST_MAIN(TestSpeedupChart)
#include "test_speedup_chart.moc"
