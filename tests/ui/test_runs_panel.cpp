// The runs table as a user sorts and filters it, on the offscreen platform:
// a clicked header sorts its column (numbers as numbers), the filter box
// keeps the rows with its text, and checks, selection and deletion still
// name the right runs through both.
#include <QHeaderView>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QtTest>

#include "config/train_config.h"
#include "record/run_record.h"
#include "runs_panel.h"
#include "runs_table_model.h"

namespace {

dp::RunRecord finishedRun(const std::string& id, int batchSize)
{
    dp::TrainConfig config;
    config.model = "lenet";
    config.batch_size = batchSize;
    config.epochs = 1;
    dp::RunRecord record = dp::start_run_record(config, "dp-train");
    record.id = id;
    record.status = dp::RunStatus::finished;
    record.epochs.push_back({1, 0.5, 0.6, 0.55, 2.0});
    return record;
}

// The batch sizes down the table, as shown.
QList<int> shownBatches(const QTableView& table)
{
    QList<int> batches;
    for (int row = 0; row < table.model()->rowCount(); ++row)
        batches << table.model()->index(row, RunsTableModel::GlobalBatchColumn).data().toInt();
    return batches;
}

void clickHeader(QTableView& table, int column)
{
    QHeaderView* header = table.horizontalHeader();
    const QPoint centre(header->sectionViewportPosition(column) + header->sectionSize(column) / 2,
                        header->height() / 2);
    QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, centre);
}

}  // namespace

class TestRunsPanel : public QObject {
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void clickedHeaderSortsAndKeepsChecksAndSelection();
    void filterKeepsTheRowsWithItsText();
    void rightClickChoosesTheBaseline();
    void repeatedComparisonShowsItsMedianAndRange();
    void repeatedComparisonRunsNameTheirRepeat();
    void renameKeepsTheRulesOfAnImportedName();

private:
    std::unique_ptr<RunsTableModel> model_;
    std::unique_ptr<RunsPanel> panel_;
    QTableView* table_ = nullptr;
};

// Three runs, started in the order 512, 64, 128.
void TestRunsPanel::init()
{
    model_ = std::make_unique<RunsTableModel>();
    model_->upsert(finishedRun("run-a", 512));
    model_->upsert(finishedRun("run-b", 64));
    model_->upsert(finishedRun("run-c", 128));
    panel_ = std::make_unique<RunsPanel>(model_.get());
    panel_->resize(900, 300);
    panel_->show();
    QVERIFY(QTest::qWaitForWindowExposed(panel_.get()));
    table_ = panel_->findChild<QTableView*>(QStringLiteral("runsTable"));
    QVERIFY(table_);
}

void TestRunsPanel::cleanup()
{
    panel_.reset();
    model_.reset();
}

void TestRunsPanel::clickedHeaderSortsAndKeepsChecksAndSelection()
{
    QCOMPARE(shownBatches(*table_), (QList<int>{512, 64, 128}));  // as they started
    clickHeader(*table_, RunsTableModel::GlobalBatchColumn);
    QCOMPARE(shownBatches(*table_), (QList<int>{64, 128, 512}));  // 64 < 128: numbers, not text
    clickHeader(*table_, RunsTableModel::GlobalBatchColumn);
    QCOMPARE(shownBatches(*table_), (QList<int>{512, 128, 64}));

    // The middle row shown is run-c (128): unchecking it and deleting it name run-c.
    QCOMPARE(model_->checkedRecords().size(), std::size_t(3));  // new runs are drawn
    QVERIFY(table_->model()->setData(table_->model()->index(1, RunsTableModel::RunColumn),
                                     Qt::Unchecked, Qt::CheckStateRole));
    QVERIFY(!model_->isChecked(model_->rowOf("run-c")));
    QCOMPARE(model_->checkedRecords().size(), std::size_t(2));
    table_->selectRow(1);
    QSignalSpy deleted(panel_.get(), &RunsPanel::deleteRequested);
    auto* deleteButton = panel_->findChild<QPushButton*>(QStringLiteral("deleteRunsButton"));
    QVERIFY(deleteButton && deleteButton->isEnabled());
    deleteButton->click();
    QCOMPARE(deleted.count(), 1);
    QCOMPARE(deleted.front().front().value<std::vector<std::string>>(),
             std::vector<std::string>{"run-c"});
}

// Issue 44: renaming took 300 characters where import stops at 200, and a
// U+202E that reversed the name's text. Both follow dp::run_name_problem
// now, and say why in one line.
void TestRunsPanel::renameKeepsTheRulesOfAnImportedName()
{
    QSignalSpy renamed(model_.get(), &RunsTableModel::runRenamed);
    QSignalSpy refused(model_.get(), &RunsTableModel::renameRefused);
    const int row = model_->rowOf("run-a");
    const QModelIndex cell = model_->index(row, RunsTableModel::RunColumn);
    const QString before = model_->displayLabel(row);
    const QString rightToLeftOverride = QString(QChar(0x202E));
    for (const QString& name : {QString(300, QLatin1Char('x')), "run " + rightToLeftOverride + "txt.exe",
                                QString("a") + QChar(0x2066) + "b"}) {
        QVERIFY(!model_->setData(cell, name, Qt::EditRole));
        QCOMPARE(model_->displayLabel(row), before);
    }
    QCOMPARE(renamed.count(), 0);
    QCOMPARE(refused.count(), 3);
    QCOMPARE(refused[0].front().toString(),
             QStringLiteral("Could not rename: the name is 300 characters long; a run's name takes at most 200"));
    QVERIFY2(refused[1].front().toString().startsWith(
                     QStringLiteral("Could not rename: the name holds U+202E, a bidirectional control character")),
             qPrintable(refused[1].front().toString()));
    QVERIFY(refused[2].front().toString().contains(QStringLiteral("U+2066")));
    // The longest a name may be, and right-to-left letters without a control character, are names.
    for (const QString& name : {QString(200, QLatin1Char('y')), QStringLiteral("\u05E8\u05D9\u05E6\u05D4")}) {
        QVERIFY(model_->setData(cell, name, Qt::EditRole));
        QCOMPARE(model_->displayLabel(row), name);
    }
    QCOMPARE(renamed.count(), 2);
    QCOMPARE(refused.count(), 3);
}

void TestRunsPanel::filterKeepsTheRowsWithItsText()
{
    auto* filter = panel_->findChild<QLineEdit*>(QStringLiteral("runsFilter"));
    QVERIFY(filter);
    QTest::keyClicks(filter, QStringLiteral("B128"));  // in the run's name, any case
    QCOMPARE(shownBatches(*table_), QList<int>{128});
    table_->selectRow(0);
    QSignalSpy deleted(panel_.get(), &RunsPanel::deleteRequested);
    panel_->findChild<QPushButton*>(QStringLiteral("deleteRunsButton"))->click();
    QCOMPARE(deleted.front().front().value<std::vector<std::string>>(),
             std::vector<std::string>{"run-c"});
    filter->clear();
    QCOMPARE(shownBatches(*table_), (QList<int>{512, 64, 128}));
}

// Two 1-device runs, at batch 64 and lr 0.2 and at 128 and 0.4; a 2-device
// run at 128 and 0.4 compares with the second (identical settings) until the
// user makes the first its baseline (weak scaling), and back with the
// automatic choice.
void TestRunsPanel::rightClickChoosesTheBaseline()
{
    model_ = std::make_unique<RunsTableModel>();
    panel_ = std::make_unique<RunsPanel>(model_.get());
    dp::RunRecord half = finishedRun("run-b", 64);
    dp::RunRecord same = finishedRun("run-c", 128);
    dp::RunRecord two = finishedRun("run-d", 128);
    same.config.lr = two.config.lr = 0.4f;
    for (dp::RunRecord* one : {&half, &same})
        one->config.devices = {"cpu:0"};
    two.config.devices = {"cpu:0", "cpu:1"};
    two.epochs.back().seconds = 1.0;
    for (const dp::RunRecord& run : {half, same, two})
        model_->upsert(run);
    const int row = model_->rowOf("run-d");
    const auto speedup = [&] { return model_->index(row, RunsTableModel::SpeedupColumn).data().toString(); };
    QCOMPARE(model_->comparison(row)->baseline, std::optional<std::size_t>(model_->rowOf("run-c")));
    QVERIFY2(speedup().endsWith(QStringLiteral("strong")), qPrintable(speedup()));

    QMenu menu;
    panel_->fillRunMenu(menu, model_->rowOf("run-b"));
    auto* use = menu.findChild<QAction*>(QStringLiteral("useAsBaselineAction"));
    QVERIFY(use && use->isEnabled() && !use->isChecked());
    use->trigger();
    QCOMPARE(model_->chosenBaseline(), std::string("run-b"));
    QCOMPARE(model_->comparison(row)->baseline, std::optional<std::size_t>(model_->rowOf("run-b")));
    QVERIFY2(speedup().endsWith(QStringLiteral("weak")), qPrintable(speedup()));

    QMenu again;
    panel_->fillRunMenu(again, model_->rowOf("run-b"));
    QVERIFY(again.findChild<QAction*>(QStringLiteral("useAsBaselineAction"))->isChecked());
    again.actions().back()->trigger();  // "Choose baselines automatically"
    QVERIFY(model_->chosenBaseline().empty());
    QCOMPARE(model_->comparison(row)->baseline, std::optional<std::size_t>(model_->rowOf("run-c")));

    // A 2-device run is no baseline.
    QMenu ofTwo;
    panel_->fillRunMenu(ofTwo, row);
    QVERIFY(!ofTwo.findChild<QAction*>(QStringLiteral("useAsBaselineAction"))->isEnabled());
}

// Compare 1 vs 2 repeated 3 times: the 2-device rows show the median speedup
// with the range of the 3 repeats, and sort by the median.
void TestRunsPanel::repeatedComparisonShowsItsMedianAndRange()
{
    const double twoDeviceSeconds[] = {1.25, 1.0, 0.8};  // against 2.0 s: 1.6x, 2x, 2.5x
    for (int repeat = 0; repeat < 3; ++repeat) {
        dp::RunRecord one = finishedRun("one-" + std::to_string(repeat), 256);
        dp::RunRecord two = finishedRun("two-" + std::to_string(repeat), 256);
        one.config.devices = {"cpu:0"};
        two.config.devices = {"cpu:0", "cpu:1"};
        two.epochs.back().seconds = twoDeviceSeconds[repeat];
        one.comparison_group = two.comparison_group = "compare-repeated";
        model_->upsert(one);
        model_->upsert(two);
    }
    for (int repeat = 0; repeat < 3; ++repeat) {
        const int row = model_->rowOf("two-" + std::to_string(repeat));
        const QModelIndex cell = model_->index(row, RunsTableModel::SpeedupColumn);
        QCOMPARE(cell.data().toString(), QStringLiteral("2.00× (1.60–2.50) strong"));
        QCOMPARE(cell.data(Qt::UserRole).toDouble(), 2.0);
        QVERIFY(cell.data(Qt::ToolTipRole).toString().contains(QStringLiteral("3 repeats")));
        QCOMPARE(model_->index(row, RunsTableModel::EfficiencyColumn).data().toString(),
                 QStringLiteral("100% (80–125)"));
        // The range comes with the comparison: the table only formats it.
        const std::optional<RunComparison> comparison = model_->comparison(row);
        QVERIFY(comparison && comparison->repeatedEfficiency);
        QCOMPARE(comparison->repeatedEfficiency->median, 1.0);
        QCOMPARE(comparison->repeatedEfficiency->min, 0.8);
        QCOMPARE(comparison->repeatedEfficiency->max, 1.25);
        QCOMPARE(model_->index(row, RunsTableModel::EfficiencyColumn).data(Qt::UserRole).toDouble(), 1.0);
    }
}

// Compare repeated 3 times gives six runs whose settings are the same: each
// reads as its repeat, in the table and (labelledRecord) on the charts.
void TestRunsPanel::repeatedComparisonRunsNameTheirRepeat()
{
    for (int repeat = 0; repeat < 3; ++repeat) {
        dp::RunRecord one = finishedRun("one-" + std::to_string(repeat), 256);
        dp::RunRecord two = finishedRun("two-" + std::to_string(repeat), 256);
        one.config.devices = {"cpu:0"};
        two.config.devices = {"cpu:0", "cpu:1"};
        one.comparison_group = two.comparison_group = "compare-repeated";
        model_->upsert(one);
        model_->upsert(two);
    }
    // A comparison run once keeps its plain labels.
    dp::RunRecord single = finishedRun("single", 256);
    single.comparison_group = "compare-once";
    model_->upsert(single);

    QSet<QString> labels;
    for (int repeat = 0; repeat < 3; ++repeat) {
        for (const std::string prefix : {"one-", "two-"}) {
            const int row = model_->rowOf(prefix + std::to_string(repeat));
            const QString label = model_->displayLabel(row);
            QVERIFY2(label.endsWith(QStringLiteral(" · repeat %1").arg(repeat + 1)), qPrintable(label));
            QCOMPARE(model_->index(row, RunsTableModel::RunColumn).data().toString(), label);
            QCOMPARE(QString::fromStdString(model_->labelledRecord(row).label()), label);
            labels.insert(label);
        }
    }
    QCOMPARE(labels.size(), 6);  // no two read the same
    const int singleRow = model_->rowOf("single");
    QVERIFY(!model_->displayLabel(singleRow).contains(QStringLiteral("repeat")));

    std::vector<dp::RunRecord> records;
    for (int row = 0; row < model_->rowCount(); ++row)
        records.push_back(model_->record(row));
    std::vector<const dp::RunRecord*> pointers;
    for (const dp::RunRecord& record : records)
        pointers.push_back(&record);
    const auto repeatOf = [&](const std::string& id) {
        return comparisonRepeat(records[std::size_t(model_->rowOf(id))], pointers);
    };
    QCOMPARE(repeatOf("one-1"), 2);
    QCOMPARE(repeatOf("two-2"), 3);
    QCOMPARE(repeatOf("single"), 0);  // a comparison run once
    QCOMPARE(repeatOf("run-a"), 0);   // no comparison
}

QTEST_MAIN(TestRunsPanel)
#include "test_runs_panel.moc"
