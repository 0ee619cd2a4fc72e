#include "main_window.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QStyle>
#include <QVBoxLayout>

#include "accuracy_chart.h"
#include "batch_split_view.h"
#include "run_config_panel.h"
#include "training_worker.h"

namespace {

constexpr int kMaxLogLines = 10000;

QString formatSeconds(double seconds)
{
    // Tiny runs take a fraction of a second per epoch; keep two digits there.
    return QString::number(seconds, 'f', seconds < 1.0 ? 2 : 1);
}

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      configPanel_(new RunConfigPanel),
      accuracyChart_(new AccuracyChart),
      batchSplitView_(new BatchSplitView),
      startButton_(new QPushButton(style()->standardIcon(QStyle::SP_MediaPlay), tr("Start"))),
      stopButton_(new QPushButton(style()->standardIcon(QStyle::SP_MediaStop), tr("Stop"))),
      batchProgressBar_(new QProgressBar),
      statusLabel_(new QLabel),
      logView_(new QPlainTextEdit)
{
    setWindowTitle(tr("DP Workbench"));

    configPanel_->setObjectName(QStringLiteral("runConfigPanel"));
    accuracyChart_->setObjectName(QStringLiteral("accuracyChart"));
    startButton_->setObjectName(QStringLiteral("startButton"));
    stopButton_->setObjectName(QStringLiteral("stopButton"));
    batchProgressBar_->setObjectName(QStringLiteral("batchProgressBar"));
    statusLabel_->setObjectName(QStringLiteral("statusLabel"));
    logView_->setObjectName(QStringLiteral("logView"));

    startButton_->setDefault(true);
    showIdleProgress(tr("no run yet"));
    statusLabel_->setWordWrap(true);
    statusLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    logView_->setReadOnly(true);
    logView_->setMaximumBlockCount(kMaxLogLines);
    logView_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    logView_->setPlaceholderText(tr("Engine log"));

    auto* controlsRow = new QHBoxLayout;
    controlsRow->addWidget(startButton_);
    controlsRow->addWidget(stopButton_);
    controlsRow->addWidget(batchProgressBar_, 1);

    auto* chartColumn = new QVBoxLayout;
    chartColumn->addWidget(accuracyChart_, 1);
    chartColumn->addWidget(batchSplitView_);
    chartColumn->addLayout(controlsRow);
    chartColumn->addWidget(statusLabel_);

    auto* runArea = new QWidget;
    auto* runLayout = new QHBoxLayout(runArea);
    runLayout->setContentsMargins(0, 0, 0, 0);
    runLayout->addWidget(configPanel_);
    runLayout->addLayout(chartColumn, 1);

    // The log can be dragged taller to read it, or shorter to favour the chart.
    auto* splitter = new QSplitter(Qt::Vertical);
    splitter->addWidget(runArea);
    splitter->addWidget(logView_);
    splitter->setChildrenCollapsible(false);
    splitter->setSizes({560, 180});

    auto* central = new QWidget;
    auto* centralLayout = new QVBoxLayout(central);
    centralLayout->addWidget(splitter);
    setCentralWidget(central);
    resize(1180, 780);

    connect(startButton_, &QPushButton::clicked, this, &MainWindow::startRun);
    connect(stopButton_, &QPushButton::clicked, this, &MainWindow::stopRun);
    connect(configPanel_, &RunConfigPanel::validityChanged, this, &MainWindow::updateControls);

    // The worker emits on its own thread; queued delivery runs these slots on
    // the GUI thread.
    const TrainingWorker* worker = training_.worker();
    connect(worker, &TrainingWorker::logLine, this, &MainWindow::appendLog, Qt::QueuedConnection);
    connect(worker, &TrainingWorker::batchProgress, this, &MainWindow::showBatchProgress,
            Qt::QueuedConnection);
    connect(worker, &TrainingWorker::stepReported, batchSplitView_, &BatchSplitView::showStep,
            Qt::QueuedConnection);
    connect(worker, &TrainingWorker::epochFinished, this, &MainWindow::showEpoch,
            Qt::QueuedConnection);
    connect(worker, &TrainingWorker::runFinished, this, &MainWindow::showFinished,
            Qt::QueuedConnection);
    connect(worker, &TrainingWorker::runFailed, this, &MainWindow::showFailure,
            Qt::QueuedConnection);

    updateControls();
    showStatus(tr("Ready"));
}

void MainWindow::setRunConfig(const dp::TrainConfig& config)
{
    configPanel_->setConfig(config);
}

void MainWindow::startRun()
{
    if (running_ || !configPanel_->isValid())
        return;
    const dp::TrainConfig config = configPanel_->config();
    training_.start(config);

    ++runCount_;
    runEpochs_ = config.epochs;
    epochsDone_ = 0;
    stopRequested_ = false;
    const QString runName = tr("run %1: %2, batch %3, lr %4")
                                .arg(runCount_)
                                .arg(QString::fromStdString(config.model))
                                .arg(config.batch_size)
                                .arg(double(config.lr));
    accuracyChart_->startRun(runName, config.epochs);
    batchSplitView_->clear();
    appendLog(QStringLiteral("— %1, %2 epochs").arg(runName).arg(config.epochs));
    batchProgressBar_->setRange(0, 0);  // busy until the first batch reports
    batchProgressBar_->setFormat(tr("loading data"));
    showStatus(tr("Starting run %1…").arg(runCount_));
    running_ = true;
    updateControls();
}

void MainWindow::stopRun()
{
    if (!running_)
        return;
    training_.requestStop();
    stopRequested_ = true;
    updateControls();
    showStatus(tr("Stopping after the current batch…"));
}

void MainWindow::updateControls()
{
    configPanel_->setEnabled(!running_);
    startButton_->setEnabled(!running_ && configPanel_->isValid());
    stopButton_->setEnabled(running_ && !stopRequested_);
}

void MainWindow::showBatchProgress(int epoch, int batch, int batchesPerEpoch, double loss)
{
    batchProgressBar_->setRange(0, batchesPerEpoch);
    batchProgressBar_->setValue(batch);
    batchProgressBar_->setFormat(tr("epoch %1 · batch %2/%3 · loss %4")
                                     .arg(epoch)
                                     .arg(batch)
                                     .arg(batchesPerEpoch)
                                     .arg(loss, 0, 'f', 3));
}

void MainWindow::showEpoch(const dp::EpochMetrics& metrics)
{
    accuracyChart_->addPoint(metrics.epoch, metrics.test_acc);
    epochsDone_ = metrics.epoch;
    // Same line as dp-train prints, so GUI and CLI logs compare directly.
    appendLog(QStringLiteral("epoch %1/%2: train loss %3, train acc %4, test acc %5, %6 sec")
                  .arg(metrics.epoch)
                  .arg(runEpochs_)
                  .arg(metrics.train_loss, 0, 'f', 4)
                  .arg(metrics.train_acc, 0, 'f', 3)
                  .arg(metrics.test_acc, 0, 'f', 3)
                  .arg(metrics.seconds, 0, 'f', 1));
    // A pending stop keeps its "Stopping…" status until the run ends.
    if (!stopRequested_)
        showStatus(tr("epoch %1/%2 · test acc %3 · %4 sec/epoch")
                       .arg(metrics.epoch)
                       .arg(runEpochs_)
                       .arg(metrics.test_acc, 0, 'f', 2)
                       .arg(formatSeconds(metrics.seconds)));
    emit epochPlotted(metrics.epoch);
}

void MainWindow::showFinished(const QString& summaryLine, bool stoppedEarly)
{
    running_ = false;
    updateControls();
    if (stoppedEarly) {
        showIdleProgress(tr("stopped"));
        showStatus(epochsDone_ == 0 ? tr("Stopped before the first epoch ended")
                                    : tr("Stopped after epoch %1/%2 · %3")
                                          .arg(epochsDone_)
                                          .arg(runEpochs_)
                                          .arg(summaryLine));
    } else {
        showStatus(tr("Finished · %1").arg(summaryLine));
    }
    emit runEnded();
}

void MainWindow::showFailure(const QString& message)
{
    running_ = false;
    updateControls();
    appendLog(tr("error: %1").arg(message));
    showIdleProgress(tr("failed"));
    showStatus(tr("Error: %1").arg(message), true);
    emit runEnded();
}

void MainWindow::showIdleProgress(const QString& text)
{
    batchProgressBar_->setRange(0, 1);
    batchProgressBar_->setValue(0);
    batchProgressBar_->setFormat(text);
}

void MainWindow::showStatus(const QString& text, bool isError)
{
    statusLabel_->setText(text);
    statusLabel_->setStyleSheet(isError ? QStringLiteral("color: #c62828;") : QString());
}

void MainWindow::appendLog(const QString& line)
{
    logView_->appendPlainText(line);
}
