#include "run_chart_view.h"

#include <QChart>
#include <QLineSeries>
#include <QMouseEvent>

#include <algorithm>
#include <cmath>

#include "chart_axis.h"
#include "chart_readout.h"

// RunChartView's readout: the values of the lines nearest the mouse, read
// out beside it as it moves over the plot (apart from drawing the lines,
// run_chart_view.cpp).

namespace {

// How far across from the mouse (pixels) a line's nearest point can be and still be read out.
constexpr double kReadoutReach = 48;

QString number(double value)
{
    return QString::number(value, 'g', 4);
}

}  // namespace

std::vector<RunChartView::Reading> RunChartView::readingsAt(QPointF scenePos) const
{
    const QRectF area = chart()->plotArea();
    const QPointF mouse = chart()->mapFromScene(scenePos);
    if (area.isEmpty() || !area.adjusted(-1, -1, 1, 1).contains(mouse))
        return {};
    const double reach = kReadoutReach * std::max(1.0, fontScale_);
    std::vector<Reading> readings;
    for (const Line& line : lines_) {
        if (!line.series->isVisible() || !line.readOut)
            continue;
        std::optional<Reading> nearest;
        double bestDistance = reach;
        for (const QPointF& value : line.values) {
            const double y = yAxis_->position(value.y());
            if (!std::isfinite(y))
                continue;
            const QPointF at = drawnAt({value.x(), y});
            if (!area.adjusted(-1, -1, 1, 1).contains(at))
                continue;  // zoomed out of view
            const double distance = std::abs(at.x() - mouse.x());
            if (distance < bestDistance) {
                bestDistance = distance;
                nearest = Reading{&line, value, chart()->mapToScene(at)};
            }
        }
        if (nearest)
            readings.push_back(*nearest);
    }
    // Top to bottom, as the lines are drawn; ties by run name, the same each time.
    std::sort(readings.begin(), readings.end(), [](const Reading& a, const Reading& b) {
        if (a.value.y() != b.value.y())
            return a.value.y() > b.value.y();
        return a.line->runName < b.line->runName;
    });
    return readings;
}

QString RunChartView::readoutValue(const Reading& reading) const
{
    const QString valueName = reading.line->valueName.isEmpty() ? valueName_ : reading.line->valueName;
    return valueName + QLatin1Char(' ') + (valueText_ ? valueText_(reading.value.y()) : number(reading.value.y()));
}

QString RunChartView::readoutHeader(const std::vector<Reading>& readings, QPointF scenePos) const
{
    // The x of the point nearest the mouse names them all: per-epoch lines
    // share it, per-batch losses differ from it by less than a pixel's worth.
    const auto nearest = std::min_element(readings.begin(), readings.end(), [&](const Reading& a, const Reading& b) {
        return std::abs(a.position.x() - scenePos.x()) < std::abs(b.position.x() - scenePos.x());
    });
    return xReadoutFormat_.arg(number(nearest->value.x()));
}

QString RunChartView::readoutAt(QPoint viewPos) const
{
    const QPointF scenePos = mapToScene(viewPos);
    const std::vector<Reading> readings = readingsAt(scenePos);
    if (readings.empty())
        return {};
    QStringList lines{readoutHeader(readings, scenePos)};
    for (const Reading& reading : readings)
        lines.append(reading.line->runName + QStringLiteral(": ") + readoutValue(reading));
    return lines.join(QLatin1Char('\n'));
}

QString RunChartView::shownReadout() const
{
    return readout_->text();
}

void RunChartView::hoverAt(QPointF scenePos)
{
    const std::vector<Reading> readings = readingsAt(scenePos);
    if (readings.empty()) {
        readout_->hide();
        return;
    }
    std::vector<ChartReadout::Entry> entries;
    for (const Reading& reading : readings)
        entries.push_back({reading.position, reading.line->color, reading.line->runName, readoutValue(reading)});
    readout_->show(scenePos.x(), scenePos.y(), chart()->mapRectToScene(chart()->plotArea()),
                   readoutHeader(readings, scenePos), std::move(entries));
}

void RunChartView::mouseMoveEvent(QMouseEvent* event)
{
    hoverAt(mapToScene(event->position().toPoint()));
    QChartView::mouseMoveEvent(event);
}

void RunChartView::leaveEvent(QEvent* event)
{
    readout_->hide();
    QChartView::leaveEvent(event);
}
