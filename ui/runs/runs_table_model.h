#pragma once

#include <QAbstractTableModel>
#include <QColor>

#include <cstddef>
#include <string>
#include <unordered_map>
#include <unordered_set>
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
// A row's label depends on every other row (displayLabel), so the labels and
// the seed groups are worked out for all rows at once, once per change of
// the runs (a run added, renamed, its settings changed, removed), and read
// from that cache by every cell, sort, filter and view: thousands of runs
// filter and sort in linear time. Adding or removing many runs at once (the
// history at launch, an import of many files, deleting a selection) is one
// change: upsert(records) and remove(ids).
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
        TagsColumn,   // the user's, edited in place (run_annotations.h)
        NotesColumn,
        DeviceCpuColumn,  // the last epoch's device threads' CPU share (dp::EpochMetrics::device_cpu)
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
    // upsert() of each record as one change: one insertion of the new rows,
    // one relabelling and one comparison for all of them. `checkedIds`: the
    // new runs to check (past ones: those on the charts when the window
    // closed; new ones: all when empty); checkedChanged() is emitted for the
    // past ones among them.
    void upsert(const std::vector<dp::RunRecord>& records, bool past = false,
                const std::unordered_set<std::string>& checkedIds = {});
    void remove(const std::string& id);
    // Marks run `id` as one the history could not keep: its Status cell says
    // so, its tooltip says where its record went instead (`whereKept`).
    void setNotInHistory(const std::string& id, const QString& whereKept);
    // Removes the runs of `ids` that are here, as one change (ids not here are ignored).
    void remove(const std::vector<std::string>& ids);

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

    // The work behind labels and seed groups since the model was made: rows
    // labelled, and seed-group keys computed (each a scan of a run's
    // settings). Tests count it to show that a filter keystroke, a sort or an
    // import costs O(runs), not O(runs²).
    struct DerivedWork {
        std::size_t rowsLabelled = 0;
        std::size_t seedKeysComputed = 0;
    };
    const DerivedWork& derivedWork() const { return derivedWork_; }

    double targetAccuracy() const { return targetAccuracy_; }
    void setTargetAccuracy(double accuracy);

signals:
    // A row was checked or unchecked (by the user or setChecked).
    void checkedChanged(const dp::RunRecord& record, bool checked);
    // The user renamed a run (edited its Run cell; an empty name restores the
    // settings label).
    void runRenamed(const dp::RunRecord& record);
    // A rename was refused, with why in one line ("Could not rename: the
    // name is 300 characters long; ..."): the name breaks the rules an
    // imported record's name keeps (dp::run_name_problem).
    void renameRefused(const QString& why);
    // The user edited a run's tags or notes (its Tags or Notes cell).
    void runAnnotated(const dp::RunRecord& record);
    // Speedups and efficiencies changed: a run ended, an epoch landed, a row
    // was checked or removed.
    void comparisonsChanged();
    void seedGroupingChanged(bool grouped);

private:
    // setData of a Tags or Notes cell: checked as an import checks them
    // (dp::run_tags_problem, run_notes_problem), refused with renameRefused.
    bool annotate(const QModelIndex& index, const QString& text);

    struct Row {
        dp::RunRecord record;
        bool checked = true;
        bool past = false;
        int colorIndex = 0;
        QString notInHistory;  // setNotInHistory's text; empty: kept as usual
        // The record's median steady epoch, kept with it: unchecked rows have
        // no comparison to read it from, and a sort reads it many times.
        std::optional<double> secondsPerEpoch;
        std::string settingsLabel;  // record.settings_label(), kept with it for the labels
        // For a past row still recorded as running: whether the process that
        // writes it trains on (looked up at each upsert).
        dp::RunProcess process = dp::RunProcess::unknown;
    };
    void setRecord(Row& row, const dp::RunRecord& record);
    QString statusTip(const Row& row) const;
    QVariant displayText(const Row& row, int rowIndex, int column) const;
    QString statusText(const Row& row) const;
    QVariant number(int rowIndex, int column) const;
    QVariant seedGroupText(const std::vector<int>& members, int column) const;
    // The members of `row`'s seed group, grouping on or off.
    const std::vector<int>& seedGroupMembers(int row) const;
    // After a change of the runs: labels and seed groups are worked out
    // again when next read; the ids' rows at once.
    void runsChanged();
    void indexIds();  // rowById_ anew, after rows moved
    void computeLabels() const;
    void computeSeedGroups() const;
    // Compares the checked runs again and says which rows' numbers changed:
    // those with a comparison before or after (unchecked rows have none).
    void recompare();

    std::vector<Row> rows_;
    std::unordered_map<std::string, int> rowById_;
    // Derived from all rows; stale after runsChanged() until next read.
    mutable std::vector<QString> labels_;
    mutable bool labelsStale_ = false;
    mutable std::vector<int> seedGroupOf_;                   // per row: an index into seedGroupMembers_
    mutable std::vector<std::vector<int>> seedGroupMembers_;  // rows in table order
    mutable bool seedGroupsStale_ = false;
    mutable DerivedWork derivedWork_;
    // Per row; empty for unchecked ones.
    std::vector<std::optional<RunComparison>> comparisons_;
    int colorsUsed_ = 0;
    double targetAccuracy_ = 0.8;
    std::string chosenBaseline_;
    bool groupSeeds_ = false;
};
