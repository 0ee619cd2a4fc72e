#include "scaling_prediction_chart.h"

#include <QAreaSeries>
#include <QChart>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPen>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

#include "run_palette.h"

namespace {

constexpr double kMaxDevices = 64;
// The predicted line's dots, and the measured diamonds well above them:
// a measured point must never pass for a predicted one.
constexpr double kPredictedDotSize = 7;
constexpr double kMeasuredMarkerSize = 16;
const QColor kPredictedColor(0x1f, 0x77, 0xb4);

}  // namespace

ScalingPredictionChart::ScalingPredictionChart(QWidget* parent)
    : QChartView(parent),
      predicted_(new QLineSeries),
      ideal_(new QLineSeries),
      spreadLow_(new QLineSeries(this)),
      spreadHigh_(new QLineSeries(this)),
      spread_(new QAreaSeries(spreadHigh_, spreadLow_)),
      xAxis_(new QLogValueAxis),
      yAxis_(new QValueAxis)
{
    setRenderHint(QPainter::Antialiasing);
    auto* chart = new QChart;
    chart->setTitle(tr("Predicted speedup over 1 device"));
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->legend()->setAlignment(Qt::AlignBottom);
    // Dashed and solid lines in the legend, as on the plot.
    chart->legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);
    setChart(chart);

    xAxis_->setBase(2);
    xAxis_->setLabelFormat(QStringLiteral("%g"));
    xAxis_->setTitleText(tr("devices (log scale)"));
    // A little room beyond 1 and 64, so the end points' markers show whole.
    xAxis_->setRange(0.85, kMaxDevices * 1.18);
    xAxis_->setMinorTickCount(0);
    yAxis_->setTitleText(tr("speedup"));
    yAxis_->setLabelFormat(QStringLiteral("%g"));
    chart->addAxis(xAxis_, Qt::AlignBottom);
    chart->addAxis(yAxis_, Qt::AlignLeft);

    ideal_->setName(tr("ideal: N× as fast"));
    ideal_->setPen(QPen(referenceLineColor(), 1.5, Qt::DashLine));
    predicted_->setPen(QPen(kPredictedColor, 2.5));
    predicted_->setPointsVisible(true);
    predicted_->setMarkerSize(kPredictedDotSize);
    QColor band = kPredictedColor;
    band.setAlpha(50);
    spread_->setBrush(band);
    spread_->setPen(Qt::NoPen);
    spread_->setName(tr("spread over the link's probes"));
    // Under the predicted line, which it surrounds.
    for (QAbstractSeries* series : std::initializer_list<QAbstractSeries*>{ideal_, spread_, predicted_}) {
        chart->addSeries(series);
        series->attachAxis(xAxis_);
        series->attachAxis(yAxis_);
    }
    setSpread({}, {});
}

void ScalingPredictionChart::setPrediction(const QList<QPointF>& points, const QString& name)
{
    predicted_->setName(name);
    predicted_->replace(points);
    fitY();
}

QString ScalingPredictionChart::devicesText(int devices)
{
    return devices == 1 ? tr("1 device") : tr("%1 devices").arg(devices);
}

QString ScalingPredictionChart::MeasuredSpeedup::comparisonText() const
{
    const double percent = std::round(100 * timeError());
    return ScalingPredictionChart::tr("%1 (%2): measured %3x, predicted %4x, time error %5%")
            .arg(name, devicesText(devices))
            .arg(speedup, 0, 'f', 2)
            .arg(predicted, 0, 'f', 2)
            .arg(QString::asprintf("%+.0f", percent == 0 ? 0.0 : percent));  // "+0", never "-0"
}

void ScalingPredictionChart::setIdealName(const QString& name)
{
    ideal_->setName(name);
}

void ScalingPredictionChart::setSpread(const QList<QPointF>& low, const QList<QPointF>& high)
{
    spreadLow_->replace(low);
    spreadHigh_->replace(high);
    spread_->setVisible(!low.isEmpty());
    // Showing a series shows its legend entry again: the caption names the band.
    for (QLegendMarker* marker : chart()->legend()->markers(spread_))
        marker->setVisible(false);
    fitY();
}

void ScalingPredictionChart::setMeasured(const std::vector<MeasuredSpeedup>& measured)
{
    for (QScatterSeries* series : measured_) {
        chart()->removeSeries(series);
        delete series;
    }
    measured_.clear();
    for (const MeasuredSpeedup& point : measured) {
        auto* series = new QScatterSeries;
        series->setName(point.comparisonText());
        series->setMarkerShape(QScatterSeries::MarkerShapeRotatedRectangle);
        series->setColor(point.color);
        series->setPen(QPen(Qt::black, 1.5));
        series->setMarkerSize(kMeasuredMarkerSize);
        series->append(point.devices, point.speedup);
        chart()->addSeries(series);
        series->attachAxis(xAxis_);
        series->attachAxis(yAxis_);
        // Their entries would crowd the legend's one row, which elides every
        // entry then (the ideal's scaling too): the page's caption is their
        // legend, the same diamond in the run's colour with this name.
        for (QLegendMarker* marker : chart()->legend()->markers(series))
            marker->setVisible(false);
        measured_.push_back(series);
    }
    fitY();
}

// Speedups far below the ideal (this machine's shared cores) would be a
// flat line under a y axis scaled to 64: y fits the predicted and measured
// points, and the ideal line is drawn up to where it leaves the plot.
void ScalingPredictionChart::fitY()
{
    double top = 2;
    for (const QLineSeries* line : {predicted_, spreadHigh_})
        for (const QPointF& point : line->points())
            top = std::max(top, point.y());
    for (const QScatterSeries* series : measured_)
        for (const QPointF& point : series->points())
            top = std::max(top, point.y());
    top = std::min(kMaxDevices, top) * 1.12;
    // At most 4 intervals: the plot can be under 100 px tall at 1280x720, and
    // Qt Charts elides every label to "..." once they crowd.
    double step = 0.5;
    for (const double candidate : {0.5, 1.0, 2.0, 5.0, 10.0, 20.0}) {
        step = candidate;
        if (top / step <= 4)
            break;
    }
    yAxis_->setRange(0, std::ceil(top / step) * step);
    yAxis_->setTickInterval(step);
    yAxis_->setTickType(QValueAxis::TicksDynamic);
    yAxis_->setTickAnchor(0);
    // y = x, sampled: between two points a series is a straight segment on
    // screen, which on the log2 x axis is y = x only at its ends (one
    // segment from 1 to 64 read 5.4x at 2 devices). Eight points an octave,
    // each power of two among them.
    const double idealEnd = std::min(kMaxDevices, yAxis_->max());
    QList<QPointF> ideal;
    constexpr int kPointsPerOctave = 8;
    for (int i = 0; std::exp2(double(i) / kPointsPerOctave) < idealEnd; ++i) {
        const double devices = std::exp2(double(i) / kPointsPerOctave);
        ideal.append(QPointF(devices, devices));
    }
    ideal.append(QPointF(idealEnd, idealEnd));
    ideal_->replace(ideal);
}
