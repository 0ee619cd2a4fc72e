#pragma once

#include <QObject>
#include <QString>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "config/train_config.h"
#include "record/run_record.h"
#include "run_progress.h"

class ChartBoard;
class ClassroomPage;
class QAction;
class QProgressBar;
class QPushButton;
class QTemporaryDir;
class RunConfigPanel;
class RunManager;
class RunsPanel;
class RunsTableModel;
class RunTimeEstimates;
class StatusLine;

// Starting, queueing, comparing and stopping runs, and following the run in
// flight: Start, Compare 1 vs N and Stop with the progress bar beside them
// (the window places them), Run ▸ Re-measure kernels, and what each run's
// start, epochs and end show on the charts, the classroom views, the runs
// table and the status line.
class RunControls : public QObject {
    Q_OBJECT

public:
    struct Parts {
        RunConfigPanel* settings;  // the settings runs start with
        RunManager* runs;
        RunsTableModel* runsModel;
        RunsPanel* runsPanel;  // marks the run in flight
        ChartBoard* charts;
        ClassroomPage* classroomPage;
        StatusLine* status;
        // Asks before a long comparison (MainWindow::Confirmation).
        std::function<bool(const QString& question)> confirm;
    };
    explicit RunControls(const Parts& parts, QObject* parent = nullptr);
    ~RunControls() override;

    QPushButton* startButton() const { return startButton_; }
    QPushButton* compareButton() const { return compareButton_; }
    QPushButton* stopButton() const { return stopButton_; }
    QProgressBar* progressBar() const { return batchProgressBar_; }
    // Checked: the next run (or comparison) re-measures its kernels.
    QAction* retuneAction() const { return retuneAction_; }

    // Shows each run's start, epochs and end as the run manager reports them.
    void followRuns();
    // Compare's button says how long it takes, the progress bar the queue's time.
    void estimateWith(RunTimeEstimates* timeEstimates);

    // MainWindow::startRun, startComparison and stopRun.
    void startRun();
    void startComparison();
    void stopRun();
    void updateControls();
    // Start is off while the settings have a problem: the status line says which.
    void showSettingsProblem();
    void showBatchProgress(int epoch, int batch, int batchesPerEpoch, double loss);

signals:
    // A run started and was added to the runs table, checked.
    void runAdded();
    // Emitted once the charts show the epoch's points.
    void epochPlotted(int epoch);
    // The last run of comparison `group` ended.
    void comparisonEnded(const std::string& group);
    // Emitted after the window shows how a run ended: finished, stopped or
    // failed; `failure` is a failed run's one-line message, else empty.
    void runEnded(const QString& failure);

private:
    // `config` with Run > Re-measure kernels applied.
    dp::TrainConfig withRetuneRequest(dp::TrainConfig config) const;
    void onRunStarted(const dp::RunRecord& record);
    void onRunUpdated(const dp::RunRecord& record);
    void onRunEnded(const dp::RunRecord& record, const QString& message);
    void showIdleProgress(const QString& text);

    RunConfigPanel* settings_;
    RunManager* runs_;
    RunsTableModel* runsModel_;
    RunsPanel* runsPanel_;
    ChartBoard* charts_;
    ClassroomPage* classroomPage_;
    StatusLine* status_;
    std::function<bool(const QString& question)> confirm_;
    RunTimeEstimates* timeEstimates_ = nullptr;
    QPushButton* startButton_;
    QPushButton* compareButton_;
    QPushButton* stopButton_;
    QProgressBar* batchProgressBar_;
    QAction* retuneAction_;
    // Each comparison's 1-device parameter snapshots (dp::TrainConfig::snapshot_dir).
    std::vector<std::unique_ptr<QTemporaryDir>> comparisonSnapshots_;
    bool stopRequested_ = false;
    RunProgress progress_;  // the run in flight
    QString runningLabel_;  // its label, for the status line
};
