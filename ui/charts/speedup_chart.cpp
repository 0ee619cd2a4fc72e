#include "speedup_chart.h"

#include <QLineSeries>

#include <algorithm>
#include <limits>
#include <map>

#include "run_palette.h"

namespace {

// The key of the y = x line among the measured ones (which are run ids).
const QString kIdealKey = QStringLiteral("ideal");

}  // namespace

SpeedupChart::SpeedupChart(QWidget* parent)
    : RunChartView(tr("Speedup over 1 device"), tr("speedup"), parent)
{
    setXTitle(tr("devices"), tr("%1 devices"));
    setWholeNumberX(true);
    setYBounds(0, std::numeric_limits<double>::max());
    setMeasurements({});
}

void SpeedupChart::setMeasurements(std::vector<Measurement> measurements)
{
    // The table reports after every epoch; rebuilding unchanged lines would
    // cost the GUI thread a chart relayout each time.
    if (lineCount() > 0 && measurements == shown_)
        return;
    shown_ = measurements;
    int maxDevices = 2;
    for (const Measurement& measurement : measurements)
        maxDevices = std::max(maxDevices, measurement.devices);

    LineStyle idealStyle;
    idealStyle.pen = Qt::DashLine;
    idealStyle.namedInExport = false;  // the key names it
    const QString idealName = tr("ideal (linear)");
    line(kIdealKey, idealName, referenceLineColor(), idealStyle);
    // Until a comparison runs, the key says how to get one. Measured
    // speedups stay below the ideal line, leaving its top left empty.
    setStyleKey({{measurements.empty() ? tr("ideal (linear) · Compare 1 vs N measures the real one")
                                       : idealName,
                  keyPen(Qt::DashLine, referenceLineColor())}},
                Qt::TopLeftCorner);
    setLinePoints(kIdealKey, {QPointF(1, 1), QPointF(maxDevices, maxDevices)});

    std::stable_sort(measurements.begin(), measurements.end(),
                     [](const Measurement& a, const Measurement& b) { return a.devices < b.devices; });
    std::map<QString, QList<QPointF>> groups;
    LineStyle measuredStyle;
    measuredStyle.markers = true;
    for (const Measurement& measurement : measurements) {
        line(measurement.group, tr("%1 (measured)").arg(measurement.groupName), measurement.color,
             measuredStyle);
        groups[measurement.group].append(QPointF(measurement.devices, measurement.speedup));
    }
    // Lines are updated in place (each epoch moves a point); only groups that
    // are gone lose theirs.
    for (const QString& key : lineKeys()) {
        if (key != kIdealKey && groups.count(key) == 0)
            removeLine(key);
    }
    for (const auto& [group, points] : groups)
        setLinePoints(group, points);

    // Half a device either side, so that the end points' dots show whole.
    showXRange(0.5, maxDevices + 0.5);
}
