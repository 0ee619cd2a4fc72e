#include "run_chart_view.h"

#include <QChart>
#include <QLegend>
#include <QLineSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <limits>

namespace {

// A "nice" upper bound (1, 2 or 5 times a power of ten) at or above value, so
// that the axis ticks land on round numbers.
double niceCeiling(double value)
{
    if (!(value > 0))
        return 1;
    const double magnitude = std::pow(10.0, std::floor(std::log10(value)));
    for (const double step : {1.0, 2.0, 2.5, 5.0, 10.0}) {
        if (step * magnitude >= value)
            return step * magnitude;
    }
    return 10 * magnitude;
}

}  // namespace

RunChartView::RunChartView(const QString& title, const QString& yTitle, QWidget* parent)
    : QChartView(parent), xAxis_(new QValueAxis), yAxis_(new QValueAxis)
{
    auto* chart = new QChart;
    chart->setTitle(title);
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->legend()->setShowToolTips(true);
    chart->setMargins(QMargins(4, 4, 4, 4));
    xAxis_->setLabelFormat(QStringLiteral("%g"));
    yAxis_->setTitleText(yTitle);
    yAxis_->setLabelFormat(QStringLiteral("%g"));
    chart->addAxis(xAxis_, Qt::AlignBottom);
    chart->addAxis(yAxis_, Qt::AlignLeft);
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    // Small enough that at 1280x720 two rows of charts leave the runs table four rows.
    setMinimumSize(320, 140);
    baseFont_ = font();
    applyFonts();
    fitAxes();
}

void RunChartView::setFontScale(double scale)
{
    fontScale_ = scale;
    applyFonts();
}

void RunChartView::applyFonts()
{
    QFont body = baseFont_;
    body.setPointSizeF(baseFont_.pointSizeF() * fontScale_);
    QFont title = body;
    title.setBold(true);
    title.setPointSizeF(body.pointSizeF() * 1.15);
    chart()->setTitleFont(title);
    chart()->legend()->setFont(body);
    for (QValueAxis* axis : {xAxis_, yAxis_}) {
        axis->setLabelsFont(body);
        axis->setTitleFont(body);
    }
}

QLineSeries* RunChartView::line(const QString& key, const QString& name, const QColor& color)
{
    if (QLineSeries* existing = lines_.value(key)) {
        existing->setName(name);
        return existing;
    }
    auto* series = new QLineSeries;
    series->setName(name);
    QPen pen(color);
    pen.setWidthF(2);
    series->setPen(pen);
    chart()->addSeries(series);
    series->attachAxis(xAxis_);
    series->attachAxis(yAxis_);
    lines_.insert(key, series);
    return series;
}

void RunChartView::removeLine(const QString& key)
{
    if (QLineSeries* series = lines_.take(key)) {
        chart()->removeSeries(series);
        delete series;
    }
}

void RunChartView::setXTitle(const QString& title)
{
    xAxis_->setTitleText(title);
}

void RunChartView::setXTitle(XAxisMode mode)
{
    setXTitle(mode == XAxisMode::epochs ? tr("epoch") : tr("training seconds"));
}

void RunChartView::setFixedYRange(double min, double max)
{
    fixedY_ = true;
    yAxis_->setRange(min, max);
}

void RunChartView::setEmptyXRange(double min, double max)
{
    emptyXMin_ = min;
    emptyXMax_ = max;
    fitAxes();
}

void RunChartView::setWholeNumberX(bool wholeNumbers)
{
    wholeNumberX_ = wholeNumbers;
    xAxis_->setLabelFormat(wholeNumbers ? QStringLiteral("%d") : QStringLiteral("%g"));
    fitAxes();
}

void RunChartView::setDecadesY(bool decades)
{
    decadesY_ = decades;
    yAxis_->setLabelFormat(decades ? QStringLiteral("1e%.0f") : QStringLiteral("%g"));
    fitAxes();
}

void RunChartView::fitAxes()
{
    double xMin = std::numeric_limits<double>::max();
    double xMax = std::numeric_limits<double>::lowest();
    double yMin = std::numeric_limits<double>::max();
    double yMax = decadesY_ ? std::numeric_limits<double>::lowest() : 0;
    for (const QLineSeries* series : std::as_const(lines_)) {
        if (!series->isVisible())
            continue;
        for (const QPointF& point : series->points()) {
            xMin = std::min(xMin, point.x());
            xMax = std::max(xMax, point.x());
            yMin = std::min(yMin, point.y());
            yMax = std::max(yMax, point.y());
        }
    }
    if (xMin > xMax) {
        xMin = emptyXMin_;
        xMax = emptyXMax_;
    }
    // The empty range is the least shown: a run's planned epochs stay in view.
    xMin = std::min(xMin, emptyXMin_);
    xMax = std::max(xMax, emptyXMax_);
    if (wholeNumberX_) {
        // At most about ten intervals, so the labels never crowd.
        constexpr int kMaxIntervals = 10;
        const int span = std::max(1, int(std::ceil(xMax - xMin)));
        xAxis_->setTickType(QValueAxis::TicksDynamic);
        xAxis_->setTickAnchor(xMin);
        xAxis_->setTickInterval((span + kMaxIntervals - 1) / kMaxIntervals);
        xAxis_->setRange(xMin, xMin + span);
    } else {
        xAxis_->setTickType(QValueAxis::TicksFixed);
        xAxis_->setRange(xMin, xMax);
        xAxis_->applyNiceNumbers();
    }
    if (decadesY_) {
        // Whole decades around the data, a tick per decade (fewer when they crowd).
        const double low = yMin > yMax ? -8 : std::floor(yMin);
        const double high = std::max(low + 1, yMin > yMax ? 0 : std::ceil(yMax));
        yAxis_->setTickType(QValueAxis::TicksDynamic);
        yAxis_->setTickAnchor(low);
        yAxis_->setTickInterval(std::ceil((high - low) / 6));
        yAxis_->setRange(low, high);
    } else if (!fixedY_) {
        yAxis_->setRange(0, niceCeiling(yMax * 1.05));
        yAxis_->applyNiceNumbers();
    }
}
