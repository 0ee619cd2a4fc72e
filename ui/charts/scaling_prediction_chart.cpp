#include "scaling_prediction_chart.h"

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

}  // namespace

ScalingPredictionChart::ScalingPredictionChart(QWidget* parent)
    : QChartView(parent),
      predicted_(new QLineSeries),
      ideal_(new QLineSeries),
      xAxis_(new QLogValueAxis),
      yAxis_(new QValueAxis)
{
    setRenderHint(QPainter::Antialiasing);
    auto* chart = new QChart;
    chart->setTitle(tr("Predicted speedup over 1 device"));
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->legend()->setAlignment(Qt::AlignBottom);
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

    ideal_->setName(tr("ideal (linear)"));
    ideal_->setPen(QPen(referenceLineColor(), 1.5, Qt::DashLine));
    QPen predictedPen(QColor(0x1f, 0x77, 0xb4), 2.5);
    predicted_->setPen(predictedPen);
    predicted_->setPointsVisible(true);
    for (QLineSeries* line : {ideal_, predicted_}) {
        chart->addSeries(line);
        line->attachAxis(xAxis_);
        line->attachAxis(yAxis_);
    }
    fitY();
}

void ScalingPredictionChart::setPrediction(const QList<QPointF>& points, const QString& name)
{
    predicted_->setName(name);
    predicted_->replace(points);
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
        series->setName(tr("%1 (measured, %n device(s))", nullptr, point.devices).arg(point.name));
        series->setColor(point.color);
        series->setBorderColor(Qt::black);
        series->setMarkerSize(11);
        series->append(point.devices, point.speedup);
        chart()->addSeries(series);
        series->attachAxis(xAxis_);
        series->attachAxis(yAxis_);
        // The runs table and the page's caption name the colours; the legend
        // keeps to the two lines, so that it stays one short row.
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
    for (const QPointF& point : predicted_->points())
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
