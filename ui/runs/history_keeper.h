#pragma once

#include <QObject>
#include <QStringList>

#include <functional>
#include <string>
#include <vector>

#include "record/run_record.h"

class ChartBoard;
class RunHistory;
class RunManager;
class RunsPanel;
class RunsTableModel;
class StatusLine;

// Keeps the runs table and the history database in step: the history's runs
// at launch (those on the charts when the window closed checked again), what
// other programs change in it meanwhile, imported run records, the user's
// renames, tags, notes and deletions, and which runs are checked. Without a
// history (it could not be opened) the window still trains; nothing is kept.
class HistoryKeeper : public QObject {
    Q_OBJECT

public:
    struct Parts {
        RunHistory* history;  // null: none could be opened
        RunManager* runs;     // the run in flight keeps writing its own edits
        RunsTableModel* runsModel;
        RunsPanel* runsPanel;  // shows why the history is missing runs
        ChartBoard* charts;
        StatusLine* status;
        // Asks before a deletion (MainWindow::Confirmation).
        std::function<bool(const QString& question)> confirm;
    };
    explicit HistoryKeeper(const Parts& parts, QObject* parent = nullptr);

    // Follows the runs table's renames, annotations and the panel's deletions.
    void followEditsAndDeletes();
    // Reads the history into the runs table, then follows other programs'
    // changes to it every few seconds.
    void loadAndFollow();
    // MainWindow::followHistory, MainWindow::importRunRecords.
    void followHistory();
    bool importRunRecords(const QStringList& paths, QString* problem = nullptr);
    // Remembers the checked runs' ids, so that a restart draws them again.
    void saveCheckedRuns() const;

signals:
    // The history's newest comparison whose runs are all checked: its card comes back.
    void checkedComparisonLoaded(const std::string& group);

private:
    void loadHistory();
    void showRunOnCharts(const dp::RunRecord& record, bool shown);
    void renameRun(const dp::RunRecord& record);
    // A run the user renamed, tagged or annotated, saved to the history
    // unless it is in flight (its own writes carry the change); `failure`
    // ("Could not rename: %1") says why not.
    void saveEditedRun(const dp::RunRecord& record, const QString& failure);
    void deleteRuns(const std::vector<std::string>& ids);

    RunHistory* history_;
    RunManager* runs_;
    RunsTableModel* runsModel_;
    RunsPanel* runsPanel_;
    ChartBoard* charts_;
    StatusLine* status_;
    std::function<bool(const QString& question)> confirm_;
};
