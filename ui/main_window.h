#pragma once

#include <QMainWindow>

#include "train/train_config.h"
#include "train/train_observer.h"
#include "training_controller.h"

class AccuracyChart;
class BatchSplitView;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class RunConfigPanel;

// The workbench window: run settings on the left, the accuracy chart beside
// them, run controls, status and the engine log below. Training runs on a
// worker thread, so the window stays responsive throughout a run.
class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit MainWindow(QWidget* parent = nullptr);

    void setRunConfig(const dp::TrainConfig& config);

public slots:
    void startRun();
    void stopRun();

signals:
    // Emitted once the chart shows the epoch's point.
    void epochPlotted(int epoch);
    // Emitted after the window shows how a run ended: finished, stopped or failed.
    void runEnded();

private:
    void updateControls();
    void showBatchProgress(int epoch, int batch, int batchesPerEpoch, double loss);
    void showEpoch(const dp::EpochMetrics& metrics);
    void showFinished(const QString& summaryLine, bool stoppedEarly);
    void showFailure(const QString& message);
    void showIdleProgress(const QString& text);
    void showStatus(const QString& text, bool isError = false);
    void appendLog(const QString& line);

    RunConfigPanel* configPanel_;
    AccuracyChart* accuracyChart_;
    BatchSplitView* batchSplitView_;
    QPushButton* startButton_;
    QPushButton* stopButton_;
    QProgressBar* batchProgressBar_;
    QLabel* statusLabel_;
    QPlainTextEdit* logView_;

    bool running_ = false;
    bool stopRequested_ = false;
    int runCount_ = 0;
    int runEpochs_ = 0;
    int epochsDone_ = 0;

    // Declared last so it is destroyed first: it stops the run and joins
    // the worker thread while the widgets above still exist.
    TrainingController training_;
};
