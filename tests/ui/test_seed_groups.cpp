// Seed groups, runs that differ only in their seed, on the offscreen
// platform: the runs table's Group seeds toggle shows one row per group with
// the median and range of its results, and the epoch charts draw the group
// as its median line with a min-max band.
#include <QAreaSeries>
#include <QCheckBox>
#include <QLineSeries>
#include <QTableView>
#include <QtTest>

#include "chart_board.h"
#include "config/train_config.h"
#include "epoch_metric_chart.h"
#include "record/run_record.h"
#include "run_legend.h"
#include "runs_panel.h"
#include "runs_table_model.h"
#include "seed_group_charts.h"
#include "seed_groups.h"

namespace {

// A finished two-epoch LeNet run with `seed` and `batchSize`, reaching test
// accuracies `first` then `second`, each epoch taking `seconds`.
dp::RunRecord seededRun(const std::string& id, std::uint64_t seed, double first, double second,
                        double seconds = 2.0, int batchSize = 256)
{
    dp::TrainConfig config;
    config.model = "lenet";
    config.batch_size = batchSize;
    config.epochs = 2;
    config.seed = seed;
    dp::RunRecord record = dp::start_run_record(config, "dp-workbench");
    record.id = id;
    record.status = dp::RunStatus::finished;
    record.epochs.push_back({1, 0.9, 0.5, first, seconds});
    record.epochs.push_back({2, 0.6, 0.6, second, seconds});
    return record;
}

double testAccuracy(const dp::EpochMetrics& epoch)
{
    return epoch.test_acc;
}

}  // namespace

class TestSeedGroups : public QObject {
    Q_OBJECT

private slots:
    void onlyTheSeedMayDiffer();
    void groupedTableShowsOneRowPerGroup();
    void bandSpansTheLowestToTheHighestRun();
    void groupingDrawsTheBandInPlaceOfTheRuns();
    void legendHidesRunsThroughRedraws();
};

void TestSeedGroups::onlyTheSeedMayDiffer()
{
    const dp::RunRecord a = seededRun("a", 1, 0.5, 0.6);
    QCOMPARE(seedGroupKey(a), seedGroupKey(seededRun("b", 2, 0.7, 0.8)));
    QVERIFY(seedGroupKey(a) != seedGroupKey(seededRun("c", 1, 0.5, 0.6, 2.0, 128)));
    const std::optional<Spread> spread = spreadOf({3, 1, 2, 10});
    QVERIFY(spread);
    QCOMPARE(spread->median, 2.5);
    QCOMPARE(spread->min, 1.0);
    QCOMPARE(spread->max, 10.0);
    QVERIFY(!spreadOf({}));
}

void TestSeedGroups::groupedTableShowsOneRowPerGroup()
{
    RunsTableModel model;
    RunsPanel panel(&model);
    auto* table = panel.findChild<QTableView*>(QStringLiteral("runsTable"));
    auto* toggle = panel.findChild<QCheckBox*>(QStringLiteral("groupSeedsBox"));
    QVERIFY(table && toggle);
    model.upsert(seededRun("s1", 1, 0.5, 0.70, 2.0));
    model.upsert(seededRun("s2", 2, 0.5, 0.80, 3.0));
    model.upsert(seededRun("s3", 3, 0.5, 0.75, 4.0));
    model.upsert(seededRun("other", 1, 0.5, 0.60, 1.0, 128));
    QCOMPARE(table->model()->rowCount(), 4);

    toggle->setChecked(true);
    QVERIFY(model.groupSeeds());
    QCOMPARE(table->model()->rowCount(), 2);
    const QAbstractItemModel& shown = *table->model();
    QCOMPARE(shown.index(0, RunsTableModel::RunColumn).data().toString(),
             QString::fromStdString(model.record(0).settings_label()) + QStringLiteral(" · 3 seeds"));
    QCOMPARE(shown.index(0, RunsTableModel::TestAccuracyColumn).data().toString(),
             QStringLiteral("0.750 (0.700–0.800)"));
    QCOMPARE(shown.index(0, RunsTableModel::SecondsPerEpochColumn).data().toString(),
             QStringLiteral("3.00 (2.00–4.00)"));
    const QString members = shown.index(0, RunsTableModel::RunColumn).data(Qt::ToolTipRole).toString();
    for (int row = 0; row < 3; ++row)
        QVERIFY2(members.contains(model.displayLabel(row)), qPrintable(members));
    // A run alone keeps its own row and text.
    QCOMPARE(shown.index(1, RunsTableModel::TestAccuracyColumn).data().toString(), QStringLiteral("0.600"));

    // Unchecking the group's row unchecks every run of it.
    table->model()->setData(shown.index(0, RunsTableModel::RunColumn), Qt::Unchecked, Qt::CheckStateRole);
    QVERIFY(!model.isChecked(0) && !model.isChecked(1) && !model.isChecked(2));
    QVERIFY(model.isChecked(3));

    toggle->setChecked(false);
    QCOMPARE(table->model()->rowCount(), 4);
    QCOMPARE(shown.index(0, RunsTableModel::TestAccuracyColumn).data().toString(), QStringLiteral("0.700"));
}

void TestSeedGroups::bandSpansTheLowestToTheHighestRun()
{
    EpochMetricChart chart(QStringLiteral("Accuracy"), {{QStringLiteral("test acc"), testAccuracy}});
    chart.resize(600, 400);
    chart.showSeedGroup(QStringLiteral("g"), QStringLiteral("LeNet"),
                        {seededRun("s1", 1, 0.50, 0.70), seededRun("s2", 2, 0.40, 0.80),
                         seededRun("s3", 3, 0.60, 0.75)},
                        Qt::blue);
    const QLineSeries* median = chart.lineOf(QStringLiteral("g"));
    QVERIFY(median);
    QCOMPARE(median->count(), 2);
    const QLineSeries* lowest = chart.lineOf(EpochMetricChart::lowestKey(QStringLiteral("g")));
    const QLineSeries* highest = chart.lineOf(EpochMetricChart::highestKey(QStringLiteral("g")));
    QVERIFY(lowest && highest);
    QCOMPARE(lowest->count(), 2);
    QCOMPARE(lowest->at(0).y(), 0.40);
    QCOMPARE(lowest->at(1).y(), 0.70);
    QCOMPARE(highest->at(0).y(), 0.60);
    QCOMPARE(highest->at(1).y(), 0.80);
    QCOMPARE(median->at(0), QPointF(1, 0.50));
    QCOMPARE(median->at(1), QPointF(2, 0.75));

    const QAreaSeries* band = chart.seedBandOf(QStringLiteral("g"));
    QVERIFY(band);
    QCOMPARE(band->upperSeries(), highest);
    QCOMPARE(band->lowerSeries(), lowest);
    QCOMPARE(band->brush().color().rgb(), QColor(Qt::blue).rgb());
    QVERIFY(band->brush().color().alpha() < 255);  // translucent: the lines show through

    chart.hideSeedGroup(QStringLiteral("g"));
    QVERIFY(!chart.seedBandOf(QStringLiteral("g")));
    QCOMPARE(chart.lineCount(), 0);
}

void TestSeedGroups::groupingDrawsTheBandInPlaceOfTheRuns()
{
    RunsTableModel model;
    ChartBoard board;
    SeedGroupCharts groups(&model, &board);
    for (const dp::RunRecord& record :
         {seededRun("s1", 1, 0.5, 0.70), seededRun("s2", 2, 0.4, 0.80), seededRun("s3", 3, 0.6, 0.75)}) {
        model.upsert(record);
        const int row = model.rowOf(record.id);
        board.setRunVisible(model.labelledRecord(row), model.color(row), true);
    }
    auto* accuracy = board.findChild<EpochMetricChart*>(QStringLiteral("accuracyChart"));
    QVERIFY(accuracy);
    const QString key = SeedGroupCharts::groupKey("s1");
    QVERIFY(!accuracy->seedBandOf(key));

    model.setGroupSeeds(true);
    QVERIFY(accuracy->seedBandOf(key));
    QCOMPARE(accuracy->lineOf(key.toStdString(), 0)->at(1).y(), 0.75);
    QVERIFY(!accuracy->lineOf("s1", 0)->isVisible());  // the median and band stand for the runs

    // One run left checked is no group: its own line is back.
    model.setChecked(model.rowOf("s2"), false);
    model.setChecked(model.rowOf("s3"), false);
    QVERIFY(!accuracy->seedBandOf(key));
    QVERIFY(accuracy->lineOf("s1", 0)->isVisible());

    // Ungrouped, the runs' own lines are back.
    model.setChecked(model.rowOf("s2"), true);
    QVERIFY(accuracy->seedBandOf(key));
    model.setGroupSeeds(false);
    QVERIFY(!accuracy->seedBandOf(key));
    QVERIFY(accuracy->lineOf("s1", 0)->isVisible());
}

// A run hidden from the legend stays hidden while the charts are drawn
// again (an epoch arrives, another run is checked, grouping goes on or off):
// a seed group hides with its first run, the colour it is drawn in.
void TestSeedGroups::legendHidesRunsThroughRedraws()
{
    RunsTableModel model;
    ChartBoard board;
    board.resize(1000, 640);
    board.show();
    QVERIFY(QTest::qWaitForWindowExposed(&board));
    SeedGroupCharts groups(&model, &board);
    const auto show = [&](const dp::RunRecord& record) {
        model.upsert(record);
        const int row = model.rowOf(record.id);
        board.updateRun(model.labelledRecord(row), model.color(row));
    };
    for (const dp::RunRecord& record : {seededRun("s1", 1, 0.5, 0.70), seededRun("s2", 2, 0.4, 0.80),
                                        seededRun("s3", 3, 0.6, 0.75), seededRun("other", 1, 0.5, 0.6, 2.0, 128)})
        show(record);
    auto* accuracy = board.findChild<EpochMetricChart*>(QStringLiteral("accuracyChart"));
    auto* legend = board.findChild<RunLegend*>(QStringLiteral("runLegend"));
    QVERIFY(accuracy && legend);
    const QString group = SeedGroupCharts::groupKey("s1");
    model.setGroupSeeds(true);
    QVERIFY(accuracy->seedBandOf(group) && accuracy->seedBandOf(group)->isVisible());
    QVERIFY(accuracy->lineOf(group.toStdString(), 0)->isVisible());

    // A click on the group's first run and on a run of its own.
    legend->toggleHidden(QStringLiteral("s1"));
    legend->toggleHidden(QStringLiteral("other"));
    const auto hiddenAsClicked = [&] {
        QVERIFY(legend->isHidden(QStringLiteral("s1")) && legend->isHidden(QStringLiteral("other")));
        QVERIFY(!accuracy->lineOf(group.toStdString(), 0)->isVisible());
        QVERIFY(!accuracy->lineOf(group.toStdString(), 1)->isVisible());  // train acc
        QVERIFY(!accuracy->seedBandOf(group)->isVisible());
        QVERIFY(!accuracy->lineOf("other", 0)->isVisible());
        QVERIFY(!accuracy->lineOf("s2", 0)->isVisible());  // the group stands for it
    };
    hiddenAsClicked();

    // A new epoch of a member redraws the group.
    dp::RunRecord s2 = seededRun("s2", 2, 0.4, 0.80);
    s2.epochs.push_back({3, 0.5, 0.7, 0.85, 2.0});
    show(s2);
    QCOMPARE(accuracy->lineOf(group.toStdString(), 0)->count(), 3);
    hiddenAsClicked();

    // Another run checked redraws every group.
    show(seededRun("s4", 4, 0.5, 0.65));
    QCOMPARE(model.seedGroups().front().size(), std::size_t(4));
    hiddenAsClicked();

    // Ungrouped, the hidden run stays hidden and the others come back.
    model.setGroupSeeds(false);
    QVERIFY(!accuracy->seedBandOf(group));
    QVERIFY(!accuracy->lineOf("s1", 0)->isVisible());
    QVERIFY(!accuracy->lineOf("other", 0)->isVisible());
    QVERIFY(accuracy->lineOf("s2", 0)->isVisible());

    // Grouped again and shown again from the legend: the group is back.
    model.setGroupSeeds(true);
    QVERIFY(!accuracy->seedBandOf(group)->isVisible());
    legend->toggleHidden(QStringLiteral("s1"));
    QVERIFY(accuracy->lineOf(group.toStdString(), 0)->isVisible());
    QVERIFY(accuracy->seedBandOf(group)->isVisible());
    QVERIFY(!accuracy->lineOf("s1", 0)->isVisible());  // still in the group
}

QTEST_MAIN(TestSeedGroups)
#include "test_seed_groups.moc"
