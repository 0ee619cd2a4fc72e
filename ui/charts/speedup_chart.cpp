#include "speedup_chart.h"

#include <QLineSeries>

#include <algorithm>
#include <map>

namespace {

// The key of the y = x line among the measured ones (which are run ids).
const QString kIdealKey = QStringLiteral("ideal");

}  // namespace

SpeedupChart::SpeedupChart(QWidget* parent)
    : RunChartView(tr("Speedup over 1 device"), tr("speedup"), parent)
{
    setXTitle(tr("devices"));
    setWholeNumberX(true);
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

    // Until a comparison runs, the legend says how to get one.
    QLineSeries* ideal = line(kIdealKey,
                              measurements.empty()
                                  ? tr("ideal (linear) · Compare 1 vs N measures the real one")
                                  : tr("ideal (linear)"),
                              Qt::gray);
    QPen dashed = ideal->pen();
    dashed.setStyle(Qt::DashLine);
    ideal->setPen(dashed);
    ideal->replace({QPointF(1, 1), QPointF(maxDevices, maxDevices)});

    std::stable_sort(measurements.begin(), measurements.end(),
                     [](const Measurement& a, const Measurement& b) { return a.devices < b.devices; });
    std::map<QString, QList<QPointF>> groups;
    for (const Measurement& measurement : measurements) {
        line(measurement.group, tr("%1 (measured)").arg(measurement.groupName), measurement.color)
            ->setPointsVisible(true);
        groups[measurement.group].append(QPointF(measurement.devices, measurement.speedup));
    }
    // Lines are updated in place (each epoch moves a point); only groups that
    // are gone lose theirs.
    for (const QString& key : lineKeys()) {
        if (key != kIdealKey && groups.count(key) == 0)
            removeLine(key);
    }
    for (const auto& [group, points] : groups)
        existingLine(group)->replace(points);

    setEmptyXRange(1, maxDevices);
}
