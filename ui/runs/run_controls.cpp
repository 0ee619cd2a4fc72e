#include "run_controls.h"

#include <QAction>
#include <QApplication>
#include <QProgressBar>
#include <QPushButton>
#include <QStyle>
#include <QTemporaryDir>

#include <algorithm>
#include <climits>

#include "chart_board.h"
#include "classroom_page.h"
#include "core/error.h"
#include "engine_message.h"
#include "loss_chart.h"
#include "run_config_panel.h"
#include "run_manager.h"
#include "run_queue.h"
#include "run_time_estimates.h"
#include "runs_panel.h"
#include "runs_table_model.h"
#include "study/study_plan.h"
#include "scratch_folders.h"
#include "status_line.h"
#include "vocabulary.h"

RunControls::RunControls(const Parts& parts, QObject* parent)
    : QObject(parent),
      settings_(parts.settings),
      runs_(parts.runs),
      runsModel_(parts.runsModel),
      runsPanel_(parts.runsPanel),
      charts_(parts.charts),
      classroomPage_(parts.classroomPage),
      status_(parts.status),
      confirm_(parts.confirm),
      startButton_(new QPushButton(QApplication::style()->standardIcon(QStyle::SP_MediaPlay), tr("Start"))),
      compareButton_(new QPushButton(tr("Compare 1 vs N"))),
      stopButton_(new QPushButton(QApplication::style()->standardIcon(QStyle::SP_MediaStop), tr("Stop"))),
      batchProgressBar_(new QProgressBar),
      retuneAction_(new QAction(tr("&Re-measure kernels on the next run"), this))
{
    startButton_->setObjectName(QStringLiteral("startButton"));
    compareButton_->setObjectName(QStringLiteral("compareButton"));
    stopButton_->setObjectName(QStringLiteral("stopButton"));
    batchProgressBar_->setObjectName(QStringLiteral("batchProgressBar"));
    // A light fill under dark text: the text reads the same on both sides of the fill's edge.
    batchProgressBar_->setStyleSheet(QStringLiteral(
        "QProgressBar { text-align: center; color: palette(window-text); }"
        "QProgressBar::chunk { background-color: #bbdefb; }"));
    startButton_->setDefault(true);
    startButton_->setToolTip(tr("Train with these settings (Ctrl+R); during a run, queue them next"));
    stopButton_->setToolTip(tr("Stop the run after its current batch, keeping its finished "
                               "epochs, and drop the queued runs"));
    showIdleProgress(tr("no run yet"));
    retuneAction_->setObjectName(QStringLiteral("retuneAction"));
    retuneAction_->setCheckable(true);
    retuneAction_->setToolTip(
            tr("Kernels are measured once per machine and reused, so the same settings give the "
               "same results. Re-measuring may pick faster kernels (after an upgrade, say); that "
               "run is then not bit-identical to earlier ones."));
}

RunControls::~RunControls() = default;

void RunControls::followRuns()
{
    connect(runs_, &RunManager::runStarted, this, &RunControls::onRunStarted);
    connect(runs_, &RunManager::runUpdated, this, &RunControls::onRunUpdated);
    connect(runs_, &RunManager::runEnded, this, &RunControls::onRunEnded);
    // A study stopped before its first run started ends with no run's end.
    connect(runs_, &RunManager::studyEnded, this, &RunControls::updateControls);
}

void RunControls::estimateWith(RunTimeEstimates* timeEstimates)
{
    timeEstimates_ = timeEstimates;
    connect(timeEstimates_, &RunTimeEstimates::estimatesChanged, this, &RunControls::updateControls);
}

void RunControls::startRun()
{
    if (!settings_->isValid()) {
        showSettingsProblem();  // Ctrl+R and --start say why nothing starts
        return;
    }
    const bool queued = runs_->isRunning();
    try {
        // The engine resolves the devices once: "cpu:0x2" is one entry and
        // two devices, recorded each ("cpu:0#0", "cpu:0#1") as a
        // comparison's runs are, so that the runs table counts replicas.
        runs_->enqueue(dp::single_run_plan(withRetuneRequest(settings_->config())));
    } catch (const dp::Error& error) {
        status_->show(tr("Cannot start: %1").arg(engineMessage(error.what())), true);
        return;
    }
    retuneAction_->setChecked(false);  // a request for one run
    updateControls();  // Stop, before the run's start arrives from the training thread
    if (queued)
        status_->show(tr("Queued: it starts when the current run ends"));
}

dp::TrainConfig RunControls::withRetuneRequest(dp::TrainConfig config) const
{
    config.retune = retuneAction_->isChecked();
    return config;
}

void RunControls::startComparison()
{
    if (!settings_->isValid()) {
        showSettingsProblem();
        return;
    }
    if (settings_->checkedDeviceCount() < 2) {
        status_->show(tr("Cannot compare: Compare 1 vs N needs 2 or more devices checked"), true);
        return;
    }
    if (!timeEstimates_->confirmComparison(confirm_))
        return;
    const dp::TrainConfig base = settings_->config();
    // Devices as the engine counts them: "cuda:0x2" is one entry, two replicas.
    const int devices = settings_->checkedDeviceCount();
    try {
        // Where the 1-device run leaves its parameters after each epoch for
        // the N-device run's drift; kept while the window is open.
        std::unique_ptr<QTemporaryDir> snapshots = newScratchFolder();
        // Repeats alternate the counts (1, N, 1, N, ...) within one group:
        // load that drifts hits each alike, and the runs table pairs each
        // N-device run with the 1-device run before it (study/study_plan.h).
        const int repeats = settings_->comparisonRepeats();
        dp::StudyPlan plan =
            dp::comparison_plan(withRetuneRequest(base), {1, devices}, settings_->scalesWithDeviceCount(),
                                repeats, snapshots->isValid() ? snapshots->path().toStdString() : "");
        comparisonSnapshots_.push_back(std::move(snapshots));
        runs_->enqueue(std::move(plan));
        updateControls();
        retuneAction_->setChecked(false);
        status_->appendLog(tr("— compare 1 vs %1 devices%2%3")
                      .arg(devices)
                      .arg(settings_->scalesWithDeviceCount()
                               ? tr(", batch and learning rate scaled with the device count")
                               : QString())
                      .arg(repeats > 1 ? tr(", %1 repeats").arg(repeats) : QString()));
    } catch (const dp::Error& error) {
        status_->show(tr("Cannot compare: %1").arg(engineMessage(error.what())), true);
    }
}

void RunControls::stopRun()
{
    if (!runs_->isRunning())
        return;
    runs_->stopAll();
    stopRequested_ = true;
    updateControls();
    status_->show(tr("Stopping after the current batch…"));
}

void RunControls::updateControls()
{
    const bool running = runs_->isRunning();
    const bool valid = settings_->isValid();
    startButton_->setEnabled(valid);
    startButton_->setText(running ? tr("Queue next") : tr("Start"));
    compareButton_->setEnabled(valid && settings_->checkedDeviceCount() >= 2);
    compareButton_->setText(timeEstimates_->compareButtonText());
    compareButton_->setToolTip(timeEstimates_->compareToolTip());
    stopButton_->setEnabled(running && !stopRequested_);
    const dp::RunRecord* current = runs_->currentRun();
    runsPanel_->setBusyRun(current ? current->id : std::string());
}

void RunControls::showSettingsProblem()
{
    if (!settings_->isValid())
        status_->show((runs_->isRunning() ? tr("Cannot queue: %1") : tr("Cannot start: %1"))
                       .arg(settings_->validationError()),
                   true);
}

void RunControls::onRunStarted(const dp::RunRecord& record)
{
    stopRequested_ = false;
    runsModel_->upsert(record);
    emit runAdded();
    const int row = runsModel_->rowOf(record.id);
    const QColor color = runsModel_->color(row);
    charts_->startRun(runsModel_->labelledRecord(row), color);
    classroomPage_->startRun(runsModel_->labelledRecord(row), color);

    const QString label = runsModel_->displayLabel(row);
    status_->appendLog(QStringLiteral("— %1, %2 epochs").arg(label).arg(record.config.epochs));
    batchProgressBar_->setRange(0, 0);  // busy until the first batch reports
    batchProgressBar_->setFormat(tr("loading data"));
    progress_.start(record.config.epochs);
    runningLabel_ = label;
    status_->show(tr("Starting %1: loading data and preparing the devices…").arg(label));
    updateControls();
}

void RunControls::onRunUpdated(const dp::RunRecord& record)
{
    runsModel_->upsert(record);
    const int row = runsModel_->rowOf(record.id);
    if (runsModel_->isChecked(row))
        charts_->updateRun(runsModel_->labelledRecord(row), runsModel_->color(row));
    const dp::EpochMetrics& metrics = record.epochs.back();
    // Same line as dp-train prints, so GUI and CLI logs compare directly.
    status_->appendLog(QString::fromStdString(dp::epoch_line(metrics, record.config.epochs)));
    // A pending stop keeps its "Stopping…" status until the run ends.
    if (!stopRequested_)
        status_->show(tr("epoch %1/%2 · test accuracy %3 · %4")
                       .arg(metrics.epoch)
                       .arg(record.config.epochs)
                       .arg(vocabulary::accuracy(metrics.test_acc))
                       .arg(vocabulary::secondsPerEpoch(metrics.seconds)));
    emit epochPlotted(metrics.epoch);
}

void RunControls::onRunEnded(const dp::RunRecord& record, const QString& message)
{
    runsModel_->upsert(record);
    const int epochsDone = int(record.epochs.size());
    // A run that ended before its first epoch has no line to show: off the
    // charts and their legends (its row keeps the reason).
    if (epochsDone == 0)
        runsModel_->setChecked(runsModel_->rowOf(record.id), false);
    charts_->refreshNow();
    if (record.status == dp::RunStatus::failed) {
        status_->appendLog(tr("error: %1").arg(message));
        showIdleProgress(tr("failed"));
        status_->show(tr("Error: %1").arg(message), true);
    } else if (record.status == dp::RunStatus::stopped) {
        status_->logSummaryOnce(message, epochsDone);
        showIdleProgress(tr("stopped"));
        status_->show(epochsDone == 0 ? tr("Stopped before the first epoch ended")
                                   : tr("Stopped after epoch %1/%2 · %3")
                                         .arg(epochsDone)
                                         .arg(record.config.epochs)
                                         .arg(message));
    } else {
        status_->logSummaryOnce(message, epochsDone);
        showIdleProgress(tr("finished"));
        status_->show(tr("Finished · %1").arg(message));
    }
    // The queue still holds the runs after this one: none of its group left
    // means the comparison is complete.
    if (!record.comparison_group.empty() && !runs_->queue()->holdsGroup(record.comparison_group))
        emit comparisonEnded(record.comparison_group);
    if (!runs_->isRunning())
        stopRequested_ = false;
    updateControls();
    emit runEnded(record.status == dp::RunStatus::failed ? message : QString());
}

void RunControls::showBatchProgress(int epoch, int batch, int batchesPerEpoch, double loss)
{
    const bool firstBatch = progress_.batchesDone() == 0;
    progress_.update(epoch, batch, batchesPerEpoch, loss);
    // The bar spans the whole run; its text says where in it we are.
    batchProgressBar_->setRange(0, int(std::min<qint64>(progress_.batchesPlanned(), INT_MAX)));
    batchProgressBar_->setValue(int(std::min<qint64>(progress_.batchesDone(), INT_MAX)));
    progress_.setQueue(timeEstimates_->queueTime(*runs_->queue()));
    batchProgressBar_->setFormat(progress_.text());
    if (firstBatch && !stopRequested_)
        status_->show(tr("Training %1").arg(runningLabel_));
}

void RunControls::showIdleProgress(const QString& text)
{
    batchProgressBar_->setRange(0, 1);
    batchProgressBar_->setValue(0);
    batchProgressBar_->setFormat(text);
}
