#include "speedup_chart.h"

#include <QLineSeries>

#include <algorithm>
#include <map>

SpeedupChart::SpeedupChart(QWidget* parent)
    : RunChartView(tr("Speedup over 1 device"), tr("speedup"), parent)
{
    setXTitle(tr("devices"));
    setWholeNumberX(true);
    setMeasurements({});
}

void SpeedupChart::setMeasurements(std::vector<Measurement> measurements)
{
    removeAllLines();
    measurementCount_ = int(measurements.size());
    int maxDevices = 2;
    for (const Measurement& measurement : measurements)
        maxDevices = std::max(maxDevices, measurement.devices);

    QLineSeries* ideal = line(QStringLiteral("ideal"), tr("ideal (linear)"), Qt::gray);
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
    for (const auto& [group, points] : groups)
        existingLine(group)->replace(points);

    setEmptyXRange(1, maxDevices);
}
