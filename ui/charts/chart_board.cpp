#include "chart_board.h"

#include <QDir>
#include <QGridLayout>

#include <algorithm>
#include <cmath>

#include "epoch_metric_chart.h"
#include "loss_chart.h"
#include "widget_image_export.h"

namespace {

bool measuresDrift(const dp::RunRecord& record)
{
    return !record.config.drift_from.empty()
            || std::any_of(record.epochs.begin(), record.epochs.end(),
                           [](const dp::EpochMetrics& e) { return !std::isnan(e.parameter_drift); });
}

} // namespace

ChartBoard::ChartBoard(QWidget* parent) : QWidget(parent), grid_(new QGridLayout(this))
{
    grid_->setContentsMargins(0, 0, 0, 0);
    grid_->setSpacing(2);
    // The run's progress on the left, how it scales on the right, drift below.
    epochCharts_.push_back(add(new EpochMetricChart(
                                       tr("Test accuracy"), tr("test acc"),
                                       [](const dp::EpochMetrics& e) { return e.test_acc; }, true),
                               "accuracyChart", "test_accuracy", 0, 0));
    loss_ = add(new LossChart, "lossChart", "training_loss", 0, 1);
    epochCharts_.push_back(add(new EpochMetricChart(
                                       tr("Seconds per epoch"), tr("sec/epoch"),
                                       [](const dp::EpochMetrics& e) { return e.seconds; }, false),
                               "secondsChart", "seconds_per_epoch", 1, 0));
    speedup_ = add(new SpeedupChart, "speedupChart", "speedup", 1, 1);
    drift_ = add(new EpochMetricChart(
                         tr("N devices vs 1: parameter drift ‖θN − θ1‖ / ‖θ1‖"), tr("drift"),
                         [](const dp::EpochMetrics& e) { return e.parameter_drift; }, false),
                 "driftChart", "parameter_drift", 2, 0, 2);
    drift_->setLogScaleY();
    drift_->setToolTip(
            tr("After each epoch, how far the N-device run's parameters are from its 1-device "
               "twin's, relative to their size (same seed, same global batch). Data "
               "parallelism computes the same update, so only float rounding tells them apart; "
               "training amplifies rounding as it leaves a plateau, as much as between two "
               "1-device runs whose kernels round differently."));
    grid_->setRowStretch(0, 3);
    grid_->setRowStretch(1, 3);
    showDrift(false);  // until a comparison measures drift
}

template <typename Chart>
Chart* ChartBoard::add(Chart* chart, const char* objectName, const char* exportName, int row,
                       int column, int columns)
{
    chart->setObjectName(QLatin1String(objectName));
    grid_->addWidget(chart, row, column, 1, columns);
    charts_.emplace_back(chart, QLatin1String(exportName));
    return chart;
}

void ChartBoard::startRun(const dp::RunRecord& record, const QColor& color)
{
    for (EpochMetricChart* chart : epochCharts_)
        chart->setPlannedEpochs(record.config.epochs);
    loss_->setPlannedEpochs(record.config.epochs);
    updateRun(record, color);
    loss_->startRun(record, color);
}

void ChartBoard::updateRun(const dp::RunRecord& record, const QColor& color)
{
    for (EpochMetricChart* chart : epochCharts_)
        chart->showRun(record, color);
    if (measuresDrift(record)) {
        drift_->setPlannedEpochs(record.config.epochs);
        drift_->showRun(record, color);
        showDrift(true);
    }
}

void ChartBoard::setRunVisible(const dp::RunRecord& record, const QColor& color, bool visible)
{
    if (visible) {
        updateRun(record, color);
    } else {
        for (EpochMetricChart* chart : epochCharts_)
            chart->hideRun(record.id);
        drift_->hideRun(record.id);
        showDrift(drift_->lineCount() > 0);
    }
    loss_->setRunVisible(record.id, visible);
}

void ChartBoard::removeRun(const std::string& id)
{
    for (EpochMetricChart* chart : epochCharts_)
        chart->hideRun(id);
    drift_->hideRun(id);
    showDrift(drift_->lineCount() > 0);
    loss_->removeRun(id);
}

void ChartBoard::showDrift(bool shown)
{
    drift_->setVisible(shown);
    grid_->setRowStretch(2, shown ? 2 : 0);  // a hidden row takes no room
}

void ChartBoard::setSpeedupMeasurements(std::vector<SpeedupChart::Measurement> measurements)
{
    speedup_->setMeasurements(std::move(measurements));
}

void ChartBoard::setXAxisMode(XAxisMode mode)
{
    for (EpochMetricChart* chart : epochCharts_)
        chart->setXAxisMode(mode);
    drift_->setXAxisMode(mode);
    loss_->setXAxisMode(mode);
}

void ChartBoard::setSmoothedLoss(bool smoothed)
{
    loss_->setSmoothed(smoothed);
}

void ChartBoard::setFontScale(double scale)
{
    for (const auto& [chart, name] : charts_)
        chart->setFontScale(scale);
}

void ChartBoard::refreshNow()
{
    loss_->refreshNow();
}

QString ChartBoard::exportTo(const QDir& folder) const
{
    loss_->refreshNow();
    for (const auto& [chart, name] : charts_) {
        const QString png = folder.filePath(name + QStringLiteral(".png"));
        const QString svg = folder.filePath(name + QStringLiteral(".svg"));
        if (!writeWidgetPng(*chart, png))
            return png;
        if (!writeWidgetSvg(*chart, svg, name))
            return svg;
    }
    return {};
}
