// The runs table as a user sorts and filters it, on the offscreen platform:
// a clicked header sorts its column (numbers as numbers), the filter box
// keeps the rows with its text, and checks, selection and deletion still
// name the right runs through both.
#include <QHeaderView>
#include <QLineEdit>
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

QTEST_MAIN(TestRunsPanel)
#include "test_runs_panel.moc"
