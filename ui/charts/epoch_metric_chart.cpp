#include "epoch_metric_chart.h"

#include <cmath>
#include <limits>

EpochMetricChart::EpochMetricChart(const QString& title, std::vector<Measurement> measurements,
                                   QWidget* parent)
    : RunChartView(title, measurements.front().name, parent), measurements_(std::move(measurements))
{
    setYBounds(0, std::numeric_limits<double>::max());  // all measurements are non-negative
    // Several line styles need a key; one is named by the title.
    if (measurements_.size() > 1) {
        std::vector<ChartKey::Entry> key;
        for (const Measurement& measurement : measurements_)
            key.push_back({measurement.name, keyPen(measurement.pen)});
        setStyleKey(std::move(key));
    }
    setXAxisMode(XAxisMode::epochs);
}

QString EpochMetricChart::lineKey(const QString& runKey, std::size_t measurement) const
{
    return measurement == 0 ? runKey : runKey + QLatin1Char('/') + measurements_[measurement].name;
}

void EpochMetricChart::showRun(const dp::RunRecord& record, const QColor& color)
{
    const QString key = QString::fromStdString(record.id);
    epochs_[key] = record.epochs;
    const QString name = QString::fromStdString(record.label());
    for (std::size_t i = 0; i < measurements_.size(); ++i) {
        LineStyle style;
        style.pen = measurements_[i].pen;
        style.markers = true;
        style.hollowMarkers = measurements_[i].pen != Qt::SolidLine;
        style.namedInExport = i == 0;  // an exported chart names each run once
        line(lineKey(key, i), name, color, style, measurements_[i].name);
    }
    plot(key);
    fitAxes();
}

void EpochMetricChart::hideRun(const std::string& id)
{
    const QString key = QString::fromStdString(id);
    epochs_.remove(key);
    for (std::size_t i = 0; i < measurements_.size(); ++i)
        removeLine(lineKey(key, i));
    fitAxes();
}

void EpochMetricChart::setXAxisMode(XAxisMode mode)
{
    mode_ = mode;
    setXTitle(mode);
    setWholeNumberX(mode == XAxisMode::epochs);
    for (auto it = epochs_.cbegin(); it != epochs_.cend(); ++it)
        plot(it.key());
    fitAxes();
}

void EpochMetricChart::plot(const QString& runKey)
{
    const std::vector<dp::EpochMetrics> epochs = epochs_.value(runKey);
    for (std::size_t i = 0; i < measurements_.size(); ++i) {
        QList<QPointF> points;
        double seconds = 0;
        for (const dp::EpochMetrics& epoch : epochs) {
            seconds += epoch.seconds;
            const double value = measurements_[i].metric(epoch);
            if (std::isfinite(value))  // not measured that epoch (drift of a 1-device run)
                points.append({mode_ == XAxisMode::epochs ? double(epoch.epoch) : seconds, value});
        }
        setLinePoints(lineKey(runKey, i), points);
    }
}
