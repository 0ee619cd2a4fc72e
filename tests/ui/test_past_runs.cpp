// Runs from the history, as a restarted window meets them, on the offscreen
// platform: a past run's Run cell carries a marker, the Classroom draws any
// checked run's saved step timings through its picker, and a restarted
// window brings back the checked runs and the card of their comparison.
#include <QAbstractProxyModel>
#include <QComboBox>
#include <QLabel>
#include <QProcess>
#include <QSettings>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "batch_split_view.h"
#include "classroom_page.h"
#include "comparison_summary_card.h"
#include "config/train_config.h"
#include "main_window.h"
#include "record/run_record.h"
#include "run_history.h"
#include "runs_table_model.h"
#include "workbench_sandbox.h"

namespace {

// A finished LeNet run on `devices` CPU devices, started at `startedAt`, whose
// record kept 10 steps' timings: each device's shard of a 256 batch and
// `allreduceMs` of all-reduce per step.
dp::RunRecord finishedRun(const std::string& id, const std::string& startedAt, int devices,
                          double allreduceMs = 0)
{
    dp::TrainConfig config;
    config.model = "lenet";
    config.batch_size = 256;
    config.epochs = 1;
    config.devices.clear();
    for (int device = 0; device < devices; ++device) {
        std::string name = "cpu:";
        name += std::to_string(device);
        config.devices.push_back(name);
    }
    dp::RunRecord record = dp::start_run_record(config, "dp-workbench");
    record.id = id;
    record.started_at = startedAt;
    record.status = dp::RunStatus::finished;
    record.epochs.push_back({1, 0.5, 0.6, 0.55, 2.0 / devices});
    constexpr int kSteps = 10;
    record.steps = kSteps;
    for (int device = 0; device < devices; ++device) {
        dp::DeviceStepTiming total;
        total.shard = 256 / devices * kSteps;
        total.forward = 4.0 * kSteps;
        total.backward = 8.0 * kSteps;
        total.allreduce = allreduceMs * kSteps;
        record.step_totals.push_back(total);
    }
    return record;
}

// The window's runs model, behind the table's sorting and filtering proxy.
RunsTableModel* runsModel(const MainWindow& window)
{
    auto* table = window.findChild<QTableView*>(QStringLiteral("runsTable"));
    return table ? qobject_cast<RunsTableModel*>(
                           qobject_cast<QAbstractProxyModel*>(table->model())->sourceModel())
                 : nullptr;
}

// What the Status cell of `id` says.
QString statusText(const RunsTableModel& model, const std::string& id)
{
    return model.data(model.index(model.rowOf(id), RunsTableModel::StatusColumn)).toString();
}

// A run recorded as running after 1 of 3 epochs by process `pid` on `host`
// (this process and machine by default).
dp::RunRecord runningRun(const std::string& id, std::int64_t pid = 0, const std::string& host = {})
{
    dp::RunRecord record = finishedRun(id, "", 1);
    record.started_at = dp::start_run_record(record.config, "dp-train").started_at;
    record.config.epochs = 3;
    record.source = "dp-train";
    record.status = dp::RunStatus::running;
    if (pid != 0)
        record.pid = pid;
    if (!host.empty())
        record.host = host;
    return record;
}

// The pid of a process that has exited and been reaped.
std::int64_t pidOfAnEndedProcess()
{
    QProcess ended;
    ended.start(QStringLiteral("true"));
    if (!ended.waitForStarted())
        return 0;
    const std::int64_t pid = ended.processId();
    ended.waitForFinished();
    return pid;
}

QImage swatchImage(const RunsTableModel& model, int row)
{
    const QIcon icon = model.data(model.index(row, RunsTableModel::RunColumn), Qt::DecorationRole)
                               .value<QIcon>();
    return icon.pixmap(16, 16).toImage();
}

}  // namespace

class TestPastRuns : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void pastRunsCarryAMarkerInTheRunColumn();
    void latestComparisonWithEveryRunChecked();
    void classroomPicksAPastRunsSavedStep();
    void restartBringsBackCheckedRunsAndTheirComparisonCard();
    void aRunOfAnotherProcessReadsRunningWhileItLives();
    void theWindowFollowsARunOfAnotherProcess();

private:
    QTemporaryDir scratch_;
    int dataDirs_ = 0;
};

void TestPastRuns::initTestCase()
{
    QVERIFY(scratch_.isValid());
    keepWorkbenchSettingsIn(scratch_, "test_past_runs");
}

// Every test starts with default settings and an empty history.
void TestPastRuns::init()
{
    startWithEmptySettingsAndHistory(scratch_, dataDirs_);
}

void TestPastRuns::pastRunsCarryAMarkerInTheRunColumn()
{
    RunsTableModel model;
    model.upsert(finishedRun("past", "2026-11-20T10:00:00Z", 1), true);
    model.upsert(finishedRun("live", "2026-11-20T11:00:00Z", 1));
    QVERIFY(model.isPast(0));
    QVERIFY(!model.isPast(1));
    // Normal text in both; the swatch of the past run carries the marker.
    QVERIFY(!model.data(model.index(0, RunsTableModel::RunColumn), Qt::ForegroundRole).isValid());
    const QImage past = swatchImage(model, 0);
    const QImage live = swatchImage(model, 1);
    QVERIFY(!past.isNull());
    QCOMPARE(live.pixelColor(8, 8), model.color(1));
    QCOMPARE(past.pixelColor(0, 0), model.color(0));  // the run's colour around the clock
    QVERIFY(past.pixelColor(8, 8) != model.color(0));
    QVERIFY(model.data(model.index(0, RunsTableModel::RunColumn), Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("history")));
    QVERIFY(!model.data(model.index(1, RunsTableModel::RunColumn), Qt::ToolTipRole)
                     .toString()
                     .contains(QStringLiteral("history")));
}

void TestPastRuns::latestComparisonWithEveryRunChecked()
{
    RunsTableModel model;
    QCOMPARE(model.latestCheckedComparisonGroup(), std::string());
    dp::RunRecord olderOne = finishedRun("a1", "2026-11-20T10:00:00Z", 1);
    dp::RunRecord olderTwo = finishedRun("a2", "2026-11-20T10:01:00Z", 2);
    dp::RunRecord newerOne = finishedRun("b1", "2026-11-21T10:00:00Z", 1);
    dp::RunRecord newerTwo = finishedRun("b2", "2026-11-21T10:01:00Z", 2);
    olderOne.comparison_group = olderTwo.comparison_group = "older";
    newerOne.comparison_group = newerTwo.comparison_group = "newer";
    for (const dp::RunRecord& record : {olderOne, olderTwo, newerOne, newerTwo})
        model.upsert(record);
    QCOMPARE(model.latestCheckedComparisonGroup(), std::string("newer"));
    model.setChecked(model.rowOf("b1"), false);
    QCOMPARE(model.latestCheckedComparisonGroup(), std::string("older"));
    model.setChecked(model.rowOf("a2"), false);
    QCOMPARE(model.latestCheckedComparisonGroup(), std::string());
}

void TestPastRuns::classroomPicksAPastRunsSavedStep()
{
    RunsTableModel model;
    ClassroomPage page;
    page.followRuns(&model);
    QVERIFY(page.runPicker()->isHidden());
    model.upsert(finishedRun("one", "2026-11-20T10:00:00Z", 1), true);
    model.upsert(finishedRun("two", "2026-11-20T11:00:00Z", 2, 6.0), true);
    model.upsert(finishedRun("unchecked", "2026-11-20T12:00:00Z", 4), true);
    QCOMPARE(page.runPicker()->count(), 0);  // past runs wait unchecked
    model.setChecked(model.rowOf("two"), true);
    // The first checked run is shown: two devices, half the batch each.
    QVERIFY(!page.runPicker()->isHidden());
    QCOMPARE(page.batchSplitView()->lastShards(), (std::vector<int>{128, 128}));
    QCOMPARE(page.runLabel(), QString::fromStdString(model.labelledRecord(model.rowOf("two")).label()));
    model.setChecked(model.rowOf("one"), true);

    // The checked runs, newest first; the run shown stays shown.
    QCOMPARE(page.runPicker()->count(), 2);
    QCOMPARE(page.runPicker()->itemData(0).toString(), QStringLiteral("two"));
    QCOMPARE(page.runPicker()->itemData(1).toString(), QStringLiteral("one"));
    QCOMPARE(page.runPicker()->itemText(0), model.displayLabel(model.rowOf("two")));
    QCOMPARE(page.runPicker()->currentIndex(), 0);
    QCOMPARE(page.batchSplitView()->lastShards(), (std::vector<int>{128, 128}));

    // Picking the older run draws its saved step: one device, the whole batch.
    page.runPicker()->setCurrentIndex(1);
    QCOMPARE(page.batchSplitView()->lastShards(), std::vector<int>{256});
    QVERIFY(!page.batchSplitView()->showsPartialBatch());
    QCOMPARE(page.runLabel(), QString::fromStdString(model.labelledRecord(model.rowOf("one")).label()));
    auto* heading = page.findChild<QLabel*>(QStringLiteral("classroomRunHeading"));
    QVERIFY(heading->text().contains(QStringLiteral("saved timings")));

    // Unchecked, it leaves the picker and the newest checked run is shown.
    model.setChecked(model.rowOf("one"), false);
    QCOMPARE(page.runPicker()->count(), 1);
    QCOMPARE(page.batchSplitView()->lastShards(), (std::vector<int>{128, 128}));
}

void TestPastRuns::restartBringsBackCheckedRunsAndTheirComparisonCard()
{
    dp::RunRecord one = finishedRun("c1", "2026-11-20T10:00:00Z", 1);
    dp::RunRecord two = finishedRun("c2", "2026-11-20T10:01:00Z", 2, 6.0);
    dp::RunRecord other = finishedRun("d1", "2026-11-19T10:00:00Z", 1);
    const std::string group = "c";
    one.comparison_group = group;
    two.comparison_group = group;
    {
        RunHistory history;
        for (const dp::RunRecord& record : {other, one, two})
            history.save(record);
    }
    {
        MainWindow first;
        auto* runs = runsModel(first);
        QVERIFY(runs);
        QCOMPARE(runs->rowCount(), 3);
        auto* card = first.findChild<ComparisonSummaryCard*>(QStringLiteral("comparisonSummaryCard"));
        QVERIFY(card && card->isHidden());  // nothing checked yet
        runs->setChecked(runs->rowOf("c1"), true);
        runs->setChecked(runs->rowOf("c2"), true);
    }
    MainWindow again;
    auto* runs = runsModel(again);
    QVERIFY(runs);
    QVERIFY(runs->isChecked(runs->rowOf("c1")));
    QVERIFY(runs->isChecked(runs->rowOf("c2")));
    QVERIFY(!runs->isChecked(runs->rowOf("d1")));
    auto* card = again.findChild<ComparisonSummaryCard*>(QStringLiteral("comparisonSummaryCard"));
    QVERIFY(card && !card->isHidden());
    QVERIFY(!card->text().isEmpty());
    // The Classroom offers the restored runs, newest first.
    auto* picker = again.findChild<QComboBox*>(QStringLiteral("classroomRunPicker"));
    QVERIFY(picker);
    QCOMPARE(picker->count(), 2);
    QCOMPARE(picker->itemData(0).toString(), QStringLiteral("c2"));
}

// Issue 43 item 7: a run dp-train still trained read "interrupted" in the
// window. From the history, a running run reads as running while the process
// that writes it lives, interrupted once it has ended, and as last seen when
// it ran on another machine.
void TestPastRuns::aRunOfAnotherProcessReadsRunningWhileItLives()
{
    const std::int64_t endedPid = pidOfAnEndedProcess();
    QVERIFY(endedPid > 0);
    RunsTableModel model;
    model.upsert(runningRun("alive"), true);
    model.upsert(runningRun("killed", endedPid), true);
    model.upsert(runningRun("elsewhere", 4242, "node-7"), true);
    QCOMPARE(statusText(model, "alive"), QStringLiteral("running · epoch 1/3"));
    QCOMPARE(statusText(model, "killed"), QStringLiteral("interrupted · 1/3 epochs"));
    QCOMPARE(statusText(model, "elsewhere"), QStringLiteral("last seen running on node-7 · 1/3 epochs"));
    QVERIFY(model.data(model.index(model.rowOf("elsewhere"), RunsTableModel::StatusColumn), Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("process 4242 on node-7")));
    // Its process gone by the next look: interrupted.
    model.upsert(runningRun("alive", endedPid), true);
    QCOMPARE(statusText(model, "alive"), QStringLiteral("interrupted · 1/3 epochs"));
}

// The window reads what another program writes into the history: a run
// that appears, its next epoch, its end; and one whose process dies.
void TestPastRuns::theWindowFollowsARunOfAnotherProcess()
{
    MainWindow window;
    auto* runs = runsModel(window);
    QVERIFY(runs);
    QCOMPARE(runs->rowCount(), 0);
    RunHistory trainer;  // dp-train's connection
    dp::RunRecord training = runningRun("training");
    trainer.save(training);
    window.followHistory();
    QCOMPARE(runs->rowCount(), 1);
    QCOMPARE(statusText(*runs, "training"), QStringLiteral("running · epoch 1/3"));

    training.epochs.push_back({2, 0.4, 0.7, 0.65, 2.0});
    trainer.save(training);
    window.followHistory();
    QCOMPARE(statusText(*runs, "training"), QStringLiteral("running · epoch 2/3"));

    training.status = dp::RunStatus::finished;
    trainer.save(training);
    window.followHistory();
    QCOMPARE(statusText(*runs, "training"), QStringLiteral("finished"));

    dp::RunRecord killed = runningRun("killed", pidOfAnEndedProcess());
    trainer.save(killed);
    window.followHistory();
    QCOMPARE(runs->rowCount(), 2);
    QCOMPARE(statusText(*runs, "killed"), QStringLiteral("interrupted · 1/3 epochs"));
}

QTEST_MAIN(TestPastRuns)
#include "test_past_runs.moc"
