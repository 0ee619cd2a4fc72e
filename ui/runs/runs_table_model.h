#pragma once

#include <QAbstractTableModel>
#include <QColor>

#include <string>
#include <vector>

#include "run_comparison.h"
#include "record/run_process.h"
#include "record/run_record.h"

// The runs of this session and of the history, one row each, oldest first:
// devices, global batch, lr, s/epoch, and for the runs checked in the
// first column (the ones drawn on the charts) the comparison of
// compareRuns(): speedup and scaling efficiency against a checked 1-device
// run of the same workload (the user's choice, else compareRuns'), time to
// the target accuracy and the speedup in that time.
// Qt::UserRole gives a cell's number (or an invalid QVariant) for sorting,
// exports and tests.
class RunsTableModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        RunColumn,
        StatusColumn,
        DevicesColumn,
        GlobalBatchColumn,
        LearningRateColumn,
        SecondsPerEpochColumn,
        SpeedupColumn,
        EfficiencyColumn,
        TestAccuracyColumn,
        TimeToTargetColumn,
        SpeedupToTargetColumn,
        StartedColumn,
        ColumnCount
    };

    explicit RunsTableModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role) override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

    // Adds the run, or updates the row with its id. New runs are checked;
    // `past` ones (from the history, or imported) are not, and read as past
    // in the table. A past run recorded as running reads as running while
    // the process that writes it lives (dp-train beside the workbench), as
    // interrupted once it is gone: upserting it again looks again.
    void upsert(const dp::RunRecord& record, bool past = false);
    void remove(const std::string& id);

    int rowOf(const std::string& id) const;  // -1 if absent
    const dp::RunRecord& record(int row) const { return rows_[std::size_t(row)].record; }
    // The row's name as the table and the charts show it: the user's name,
    // else the settings label followed by the settings in which it differs
    // from other rows with the same label ("LeNet · 1× cpu · b256 · lr 0.2 ·
    // seed 3"), and by its repeat in a repeated comparison ("· repeat 2"),
    // so two runs never read the same.
    QString displayLabel(int row) const;
    // record(row) named by displayLabel(row), for views that name runs by RunRecord::label().
    dp::RunRecord labelledRecord(int row) const;
    QColor color(int row) const;
    bool isChecked(int row) const { return rows_[std::size_t(row)].checked; }
    // Whether the row came from the history or an import (upsert's `past`).
    bool isPast(int row) const { return rows_[std::size_t(row)].past; }
    void setChecked(int row, bool checked);
    // The checked runs, in table order: what the charts show and exports write.
    std::vector<dp::RunRecord> checkedRecords() const;
    // The comparison group of the newest run whose group's runs are all
    // checked: the comparison whose card comes back after a restart. Empty
    // when there is none.
    std::string latestCheckedComparisonGroup() const;
    // The comparison of a checked row; empty for unchecked rows.
    std::optional<RunComparison> comparison(int row) const;

    // The run the user chose as the baseline of every run it is fair for
    // (compareRuns' chosenBaseline); empty: chosen automatically.
    const std::string& chosenBaseline() const { return chosenBaseline_; }
    void setChosenBaseline(const std::string& id);

    // Grouped, runs that differ only in their seed (seed_groups.h) are one
    // row: the first of them, reading the median and range of the group's
    // s/epoch, speedup and test accuracy; checking it checks them all.
    bool groupSeeds() const { return groupSeeds_; }
    void setGroupSeeds(bool grouped);
    // The rows of `row`'s seed group in table order, `row` among them; `row`
    // alone when grouping is off.
    std::vector<int> seedGroupRows(int row) const;
    // Whether the grouped table shows the row: the first of its seed group.
    bool isShownWhenGrouped(int row) const;
    // The seed groups of more than one run, when grouping is on.
    std::vector<std::vector<int>> seedGroups() const;

    double targetAccuracy() const { return targetAccuracy_; }
    void setTargetAccuracy(double accuracy);

signals:
    // A row was checked or unchecked (by the user or setChecked).
    void checkedChanged(const dp::RunRecord& record, bool checked);
    // The user renamed a run (edited its Run cell; an empty name restores the
    // settings label).
    void runRenamed(const dp::RunRecord& record);
    // Speedups and efficiencies changed: a run ended, an epoch landed, a row
    // was checked or removed.
    void comparisonsChanged();
    void seedGroupingChanged(bool grouped);

private:
    struct Row {
        dp::RunRecord record;
        bool checked = true;
        bool past = false;
        int colorIndex = 0;
        // For a past row still recorded as running: whether the process that
        // writes it trains on (looked up at each upsert).
        dp::RunProcess process = dp::RunProcess::unknown;
    };
    QString statusTip(const Row& row) const;
    QVariant displayText(const Row& row, int rowIndex, int column) const;
    QVariant number(int rowIndex, int column) const;
    QVariant seedGroupText(const std::vector<int>& members, int column) const;
    void recompare();

    std::vector<Row> rows_;
    // Per row; empty for unchecked ones.
    std::vector<std::optional<RunComparison>> comparisons_;
    int colorsUsed_ = 0;
    double targetAccuracy_ = 0.8;
    std::string chosenBaseline_;
    bool groupSeeds_ = false;
};
