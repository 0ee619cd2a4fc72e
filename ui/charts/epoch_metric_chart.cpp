#include "epoch_metric_chart.h"

#include <QLineSeries>

#include <cmath>

EpochMetricChart::EpochMetricChart(const QString& title, const QString& yTitle, Metric metric,
                                   bool fixedRange, QWidget* parent)
    : RunChartView(title, yTitle, parent), metric_(metric)
{
    if (fixedRange)
        setFixedYRange(0, 1);
    setXAxisMode(XAxisMode::epochs);
}

void EpochMetricChart::showRun(const dp::RunRecord& record, const QColor& color)
{
    const QString key = QString::fromStdString(record.id);
    epochs_[key] = record.epochs;
    QLineSeries* series = line(key, QString::fromStdString(record.label()), color);
    series->setPointsVisible(true);
    plot(key);
    fitAxes();
}

void EpochMetricChart::hideRun(const std::string& id)
{
    const QString key = QString::fromStdString(id);
    epochs_.remove(key);
    removeLine(key);
    fitAxes();
}

void EpochMetricChart::setXAxisMode(XAxisMode mode)
{
    mode_ = mode;
    setXTitle(mode);
    setWholeNumberX(mode == XAxisMode::epochs);
    for (auto it = epochs_.cbegin(); it != epochs_.cend(); ++it)
        plot(it.key());
    updateEmptyRange();
}

void EpochMetricChart::setLogScaleY()
{
    logY_ = true;
    setDecadesY(true);
}

void EpochMetricChart::setPlannedEpochs(int epochs)
{
    plannedEpochs_ = epochs;
    updateEmptyRange();
}

void EpochMetricChart::updateEmptyRange()
{
    if (mode_ == XAxisMode::epochs)
        setEmptyXRange(1, std::max(plannedEpochs_, 2));
    else
        setEmptyXRange(0, 1);
}

void EpochMetricChart::plot(const QString& key)
{
    QLineSeries* series = existingLine(key);
    if (!series)
        return;
    QList<QPointF> points;
    double seconds = 0;
    for (const dp::EpochMetrics& epoch : epochs_.value(key)) {
        seconds += epoch.seconds;
        const double value = logY_ ? std::log10(metric_(epoch)) : metric_(epoch);
        if (std::isfinite(value))  // not measured that epoch (or 0 on a log scale)
            points.append({mode_ == XAxisMode::epochs ? double(epoch.epoch) : seconds, value});
    }
    // One replace, one repaint, however many points.
    series->replace(points);
}
