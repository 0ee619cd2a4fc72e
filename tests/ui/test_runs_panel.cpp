// The runs table as a user sorts and filters it, on the offscreen platform:
// a clicked header sorts its column (numbers as numbers), the filter box
// keeps the rows with its text, and checks, selection and deletion still
// name the right runs through both. With hundreds of runs, a keystroke, a
// sort, a deletion and adding many runs label each run at most once.
#include <QCheckBox>
#include <QComboBox>
#include <QHeaderView>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QtTest>

#include "classroom_page.h"
#include "config/config_fields.h"
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

// Run `index` of a varied history: two models, 1 or 2 devices, two batches,
// four seeds, two epoch counts, some runs named (two with one name), some in
// comparisons repeated or not: every way labels tell runs apart.
dp::RunRecord variedRun(int index)
{
    dp::RunRecord record = finishedRun("varied-" + std::to_string(index), index % 3 ? 64 : 128);
    record.config.model = index % 5 == 0 ? "resnet18" : "lenet";
    record.config.devices = index % 2 ? std::vector<std::string>{"cpu:0", "cpu:1"}
                                      : std::vector<std::string>{"cpu:0"};
    record.config.seed = std::uint64_t(index / 6 % 4);
    record.config.epochs = 1 + index / 7 % 2;
    if (index % 9 == 0)
        record.name = index % 18 == 0 ? "my run" : "try " + std::to_string(index);
    if (index % 10 < 4)
        record.comparison_group = "group-" + std::to_string(index / 20);
    return record;
}

std::vector<dp::RunRecord> variedRuns(int count)
{
    std::vector<dp::RunRecord> runs;
    for (int i = 0; i < count; ++i)
        runs.push_back(variedRun(i));
    return runs;
}

// A run's label straight from its definition, comparing it with every other
// run (as the table labelled each row before labels were cached): the
// user's name, else the settings label, the settings in which the unnamed
// runs of that label differ, and the run's repeat in a repeated comparison.
QString labelByDefinition(const RunsTableModel& model, int row)
{
    const dp::RunRecord& record = model.record(row);
    if (!record.name.empty())
        return QString::fromStdString(record.name);
    const std::string label = record.settings_label();
    QString shown = QString::fromStdString(label);
    for (const dp::ConfigField& field : dp::config_fields()) {
        const std::string_view name = field.name;
        if (!(field.scope & dp::ConfigField::shared) || name == "model" || name == "batch_size" || name == "lr")
            continue;
        const std::string mine = dp::field_text(field, record.config);
        bool differs = false;
        for (int other = 0; other < model.rowCount(); ++other) {
            const dp::RunRecord& run = model.record(other);
            differs = differs
                || (other != row && run.name.empty() && run.settings_label() == label
                    && dp::field_text(field, run.config) != mine);
        }
        if (differs)
            shown += QStringLiteral(" · %1 %2").arg(QString::fromLatin1(field.label), QString::fromStdString(mine));
    }
    std::vector<const dp::RunRecord*> group;
    for (int other = 0; other < model.rowCount(); ++other)
        if (!record.comparison_group.empty() && model.record(other).comparison_group == record.comparison_group)
            group.push_back(&model.record(other));
    if (const int repeat = comparisonRepeat(record, group); repeat > 0)
        shown += QStringLiteral(" · repeat %1").arg(repeat);
    return shown;
}

// Every row's cached label against its definition, and rowOf against the rows.
void verifyLabelsAndIds(const RunsTableModel& model)
{
    for (int row = 0; row < model.rowCount(); ++row) {
        QCOMPARE(model.displayLabel(row), labelByDefinition(model, row));
        QCOMPARE(model.index(row, RunsTableModel::RunColumn).data().toString(), model.displayLabel(row));
        QCOMPARE(model.rowOf(model.record(row).id), row);
    }
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
    void tagsAndNotesAreEditedCheckedAndFiltered();
    void deviceCpuShowsTheLastEpochsShares();
    void rightClickChoosesTheBaseline();
    void repeatedComparisonShowsItsMedianAndRange();
    void repeatedComparisonRunsNameTheirRepeat();
    void renameKeepsTheRulesOfAnImportedName();
    void cachedLabelsReadAsTheirDefinition();
    void keystrokeAndSortLabelEachRunOnce();
    void manyRunsAddedAtOnceAreLabelledOnce();
    void deletingAllRunsOfASortedTable();

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

// Issue 42: W&B's run tags and notes, edited in their cells, kept in the
// record (runAnnotated saves it), refused by the import's rules, and found
// by the filter.
void TestRunsPanel::tagsAndNotesAreEditedCheckedAndFiltered()
{
    QSignalSpy annotated(model_.get(), &RunsTableModel::runAnnotated);
    QSignalSpy refused(model_.get(), &RunsTableModel::renameRefused);
    const int row = model_->rowOf("run-b");
    const QModelIndex tags = model_->index(row, RunsTableModel::TagsColumn);
    const QModelIndex notes = model_->index(row, RunsTableModel::NotesColumn);
    QVERIFY(model_->flags(tags) & Qt::ItemIsEditable);
    QVERIFY(model_->setData(tags, QStringLiteral(" baseline ,, lr sweep, baseline"), Qt::EditRole));
    QCOMPARE(model_->record(row).tags, (std::vector<std::string>{"baseline", "lr sweep"}));
    QCOMPARE(tags.data().toString(), QStringLiteral("baseline, lr sweep"));
    QCOMPARE(tags.data(Qt::EditRole).toString(), QStringLiteral("baseline, lr sweep"));
    QVERIFY(model_->setData(notes, QStringLiteral("lr too high?\nretry at 0.1"), Qt::EditRole));
    QCOMPARE(model_->record(row).notes, std::string("lr too high?\nretry at 0.1"));
    QCOMPARE(notes.data().toString(), QStringLiteral("lr too high? …"));
    QCOMPARE(notes.data(Qt::ToolTipRole).toString(), QStringLiteral("lr too high?\nretry at 0.1"));
    QCOMPARE(annotated.count(), 2);

    QVERIFY(!model_->setData(tags, QString(65, QLatin1Char('t')), Qt::EditRole));
    QCOMPARE(refused.count(), 1);
    QVERIFY2(refused.front().front().toString().startsWith(QStringLiteral("Could not tag the run: it holds a tag 65")),
             qPrintable(refused.front().front().toString()));
    QCOMPARE(model_->record(row).tags.size(), std::size_t(2));

    auto* filter = panel_->findChild<QLineEdit*>(QStringLiteral("runsFilter"));
    QTest::keyClicks(filter, QStringLiteral("lr sweep"));
    QCOMPARE(shownBatches(*table_), QList<int>{64});
}

// Issue 42: W&B's system metrics beside each run: the device threads' CPU
// share over the last epoch, their mean in the cell and each in its tooltip.
void TestRunsPanel::deviceCpuShowsTheLastEpochsShares()
{
    dp::RunRecord run = model_->record(model_->rowOf("run-a"));
    const int row = model_->rowOf("run-a");
    const QModelIndex cell = model_->index(row, RunsTableModel::DeviceCpuColumn);
    QCOMPARE(cell.data().toString(), QStringLiteral("—"));  // not measured: older records
    QVERIFY(!cell.data(Qt::UserRole).isValid());
    QVERIFY(!run.epochs.empty());
    run.config.devices = {"cpu:0", "cpu:1"};
    run.epochs.back().device_cpu = {0.9, 0.6};
    model_->upsert(run);
    QCOMPARE(cell.data().toString(), QStringLiteral("75%"));
    QCOMPARE(cell.data(Qt::UserRole).toDouble(), 0.75);
    QCOMPARE(cell.data(Qt::ToolTipRole).toString(), QStringLiteral("cpu:0 90%, cpu:1 60%"));
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

// The labels, worked out once for all rows, read as their definition after
// every kind of change: runs added at once and one by one, a rename, a
// setting changed, runs removed in scattered rows and in one stretch.
void TestRunsPanel::cachedLabelsReadAsTheirDefinition()
{
    model_ = std::make_unique<RunsTableModel>();
    panel_ = std::make_unique<RunsPanel>(model_.get());
    model_->upsert(variedRuns(60));
    for (int i = 60; i < 66; ++i)
        model_->upsert(variedRun(i));
    verifyLabelsAndIds(*model_);
    QVERIFY(model_->displayLabel(model_->rowOf("varied-4")).contains(QStringLiteral("seed")));
    QVERIFY(model_->displayLabel(model_->rowOf("varied-1")).contains(QStringLiteral("repeat")));

    QVERIFY(model_->setData(model_->index(model_->rowOf("varied-2"), RunsTableModel::RunColumn),
                            QStringLiteral("renamed"), Qt::EditRole));
    verifyLabelsAndIds(*model_);
    dp::RunRecord reseeded = model_->record(model_->rowOf("varied-3"));
    reseeded.config.seed = 77;
    model_->upsert(reseeded);
    verifyLabelsAndIds(*model_);
    QVERIFY(model_->displayLabel(model_->rowOf("varied-3")).contains(QStringLiteral("77")));

    std::vector<std::string> scattered;  // more stretches than one removal each
    for (int i = 0; i < 66; i += 3)
        scattered.push_back("varied-" + std::to_string(i));
    model_->remove(scattered);
    QCOMPARE(model_->rowCount(), 44);
    verifyLabelsAndIds(*model_);
    model_->remove(std::vector<std::string>{"varied-40", "varied-41", "varied-43", "varied-44", "no such run"});
    QCOMPARE(model_->rowCount(), 40);
    verifyLabelsAndIds(*model_);
    QCOMPARE(panel_->findChild<QTableView*>(QStringLiteral("runsTable"))->model()->rowCount(), 40);
}

// 300 runs: a filter keystroke, a sort by the Run column and grouping the
// seeds label (and group) each run at most once, however many cells they
// read; before, each cell's label compared its run with every other run.
void TestRunsPanel::keystrokeAndSortLabelEachRunOnce()
{
    constexpr int kRuns = 300;
    model_ = std::make_unique<RunsTableModel>();
    model_->upsert(variedRuns(kRuns), true);
    panel_ = std::make_unique<RunsPanel>(model_.get());
    panel_->resize(900, 600);
    panel_->show();
    QVERIFY(QTest::qWaitForWindowExposed(panel_.get()));
    table_ = panel_->findChild<QTableView*>(QStringLiteral("runsTable"));
    const RunsTableModel::DerivedWork start = model_->derivedWork();
    const auto labelledSinceStart = [&] { return model_->derivedWork().rowsLabelled - start.rowsLabelled; };
    QVERIFY(labelledSinceStart() <= std::size_t(kRuns));  // the first paint

    const std::size_t beforeKey = model_->derivedWork().rowsLabelled;
    QTest::keyClicks(panel_->findChild<QLineEdit*>(QStringLiteral("runsFilter")), QStringLiteral("seed"));
    QVERIFY(table_->model()->rowCount() > 0 && table_->model()->rowCount() < kRuns);
    clickHeader(*table_, RunsTableModel::RunColumn);
    QTest::qWait(0);
    // Nothing changed in the runs: a keystroke and a sort relabel none.
    QCOMPARE(model_->derivedWork().rowsLabelled, beforeKey == 0 ? std::size_t(kRuns) : beforeKey);
    QVERIFY(labelledSinceStart() <= std::size_t(kRuns));
    for (int row = 1; row < table_->model()->rowCount(); ++row)
        QVERIFY(QString::localeAwareCompare(table_->model()->index(row - 1, RunsTableModel::RunColumn).data().toString(),
                                            table_->model()->index(row, RunsTableModel::RunColumn).data().toString())
                <= 0);

    panel_->findChild<QCheckBox*>(QStringLiteral("groupSeedsBox"))->click();
    QTest::keyClick(panel_->findChild<QLineEdit*>(QStringLiteral("runsFilter")), Qt::Key_Backspace);
    QTest::qWait(0);
    QVERIFY(model_->derivedWork().seedKeysComputed - start.seedKeysComputed <= std::size_t(kRuns));
    QVERIFY(labelledSinceStart() <= std::size_t(kRuns));
    QVERIFY(!model_->seedGroups().empty());
}

// Runs added at once (the history at launch, an import of many files) are
// one change: one labelling for the table and the Classroom's picker, which
// names the checked runs with the table's labels. An epoch of a run changes
// no label: none is worked out again.
void TestRunsPanel::manyRunsAddedAtOnceAreLabelledOnce()
{
    constexpr int kRuns = 300;
    model_ = std::make_unique<RunsTableModel>();
    panel_ = std::make_unique<RunsPanel>(model_.get());
    ClassroomPage classroom;
    classroom.followRuns(model_.get());
    model_->upsert(variedRuns(kRuns));
    QCOMPARE(model_->derivedWork().rowsLabelled, std::size_t(kRuns));
    QCOMPARE(classroom.runPicker()->count(), kRuns);
    for (int item = 0; item < classroom.runPicker()->count(); ++item) {
        const int row = model_->rowOf(classroom.runPicker()->itemData(item).toString().toStdString());
        QCOMPARE(classroom.runPicker()->itemText(item), model_->displayLabel(row));
    }

    dp::RunRecord longer = model_->record(model_->rowOf("varied-7"));
    longer.epochs.push_back({2, 0.4, 0.7, 0.65, 2.0});
    model_->upsert(longer);
    QCOMPARE(model_->displayLabel(model_->rowOf("varied-7")), labelByDefinition(*model_, model_->rowOf("varied-7")));
    QCOMPARE(model_->derivedWork().rowsLabelled, std::size_t(kRuns));
    QCOMPARE(model_->record(model_->rowOf("varied-7")).epochs.size(), std::size_t(2));
}

// Every row of a table sorted by Run selected and deleted: one change, the
// table and the model empty, the labels worked out at most once more.
void TestRunsPanel::deletingAllRunsOfASortedTable()
{
    constexpr int kRuns = 300;
    model_ = std::make_unique<RunsTableModel>();
    model_->upsert(variedRuns(kRuns), true);
    panel_ = std::make_unique<RunsPanel>(model_.get());
    panel_->show();
    QVERIFY(QTest::qWaitForWindowExposed(panel_.get()));
    table_ = panel_->findChild<QTableView*>(QStringLiteral("runsTable"));
    clickHeader(*table_, RunsTableModel::RunColumn);
    table_->selectAll();
    std::vector<std::string> ids;
    connect(panel_.get(), &RunsPanel::deleteRequested, this,
            [&](const std::vector<std::string>& requested) { ids = requested; });
    panel_->findChild<QPushButton*>(QStringLiteral("deleteRunsButton"))->click();
    QCOMPARE(ids.size(), std::size_t(kRuns));
    const std::size_t labelled = model_->derivedWork().rowsLabelled;
    model_->remove(ids);
    QTest::qWait(0);
    QCOMPARE(model_->rowCount(), 0);
    QCOMPARE(table_->model()->rowCount(), 0);
    QVERIFY(model_->derivedWork().rowsLabelled - labelled <= std::size_t(kRuns));
}

QTEST_MAIN(TestRunsPanel)
#include "test_runs_panel.moc"
