#include "speedup_chart.h"

#include <QLineSeries>

#include <algorithm>
#include <limits>
#include <set>

#include "run_palette.h"
#include "vocabulary.h"

namespace {

// The keys of the reference lines among the measured ones (run ids).
const QString kIdealKey = QStringLiteral("ideal");
const QString kCeilingKey = QStringLiteral("ceiling");
// A measurement's error bar: its key with this suffix.
const QString kRangeSuffix = QStringLiteral("/range");

}  // namespace

SpeedupChart::SpeedupChart(QWidget* parent)
    : RunChartView(tr("Speedup over 1 device"), tr("speedup"), parent)
{
    setXTitle(tr("devices"), tr("%1 devices"));
    setValueText(vocabulary::speedup);  // "speedup 1.95×", as the table writes it
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
    // The x axis is linear here, so two points draw y = x exactly.
    setLinePoints(kIdealKey, {QPointF(1, 1), QPointF(maxDevices, maxDevices)});
    drawCeiling(maxDevices);

    // Each measurement in its run's colour, from (1, 1) to its speedup, and
    // a repeated one's range as a vertical bar.
    std::set<QString> keys{kIdealKey, kCeilingKey};
    LineStyle measuredStyle;
    measuredStyle.markers = true;
    LineStyle rangeStyle;
    rangeStyle.namedInExport = false;
    for (const Measurement& m : measurements) {
        line(m.key, m.name, m.color, measuredStyle);
        setLinePoints(m.key, {QPointF(1, 1), QPointF(m.devices, m.speedup)});
        keys.insert(m.key);
        if (m.max > m.min) {
            const QString range = m.key + kRangeSuffix;
            line(range, tr("%1: range of repeats").arg(m.name), m.color, rangeStyle);
            setLinePoints(range, {QPointF(m.devices, m.min), QPointF(m.devices, m.max)});
            keys.insert(range);
        }
    }
    // Lines are updated in place (each epoch moves a point); only the
    // measurements that are gone lose theirs.
    for (const QString& key : lineKeys()) {
        if (keys.count(key) == 0)
            removeLine(key);
    }
    // Until a comparison runs, the key says how to get one.
    std::vector<ChartKey::Entry> key{
        {measurements.empty() ? tr("ideal (linear) · Compare 1 vs N measures the real one")
                              : idealName,
         keyPen(Qt::DashLine, referenceLineColor())}};
    if (hasLine(kCeilingKey))
        key.push_back({tr("ceiling: the cores the devices had"), keyPen(Qt::DotLine)});
    setStyleKey(std::move(key));

    // Half a device either side, so that the end points' dots show whole.
    showXRange(0.5, maxDevices + 0.5);
}

// Devices taking turns on fewer cores than devices cannot beat the cores'
// count: a flat line at the lowest such ceiling from its device count on,
// so that a speedup under it is not read as the devices' fault.
void SpeedupChart::drawCeiling(int maxDevices)
{
    const Measurement* capped = nullptr;
    for (const Measurement& m : shown_)
        if (m.ceiling > 0 && (!capped || m.ceiling < capped->ceiling))
            capped = &m;
    if (!capped) {
        if (hasLine(kCeilingKey))
            removeLine(kCeilingKey);
        return;
    }
    LineStyle ceilingStyle;
    ceilingStyle.pen = Qt::DotLine;
    ceilingStyle.namedInExport = false;  // the key names it
    line(kCeilingKey, tr("ceiling of %1").arg(vocabulary::cores(int(capped->ceiling))),
         QColor(0x50, 0x50, 0x50), ceilingStyle);
    setLinePoints(kCeilingKey, {QPointF(1, 1), QPointF(capped->ceiling, capped->ceiling),
                                QPointF(maxDevices, capped->ceiling)});
}
