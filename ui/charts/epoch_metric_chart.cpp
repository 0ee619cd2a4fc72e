#include "epoch_metric_chart.h"

#include <QAreaSeries>
#include <QLegendMarker>
#include <QLineSeries>

#include <cmath>
#include <limits>

#include "seed_groups.h"

namespace {

constexpr int kBandAlpha = 50;  // of 255: the lines over the band stay legible

}  // namespace

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
    stepsPerEpoch_[key] = dp::steps_per_epoch(record.batch_losses);
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
    stepsPerEpoch_.remove(key);
    for (std::size_t i = 0; i < measurements_.size(); ++i)
        removeLine(lineKey(key, i));
    fitAxes();
}

void EpochMetricChart::showSeedGroup(const QString& key, const QString& name,
                                     const std::vector<dp::RunRecord>& members, const QColor& color)
{
    if (members.empty()) {
        hideSeedGroup(key);
        return;
    }
    std::vector<std::vector<dp::EpochMetrics>> epochs;
    for (const dp::RunRecord& member : members)
        epochs.push_back(member.epochs);
    seedGroups_[key] = std::move(epochs);
    stepsPerEpoch_[key] = dp::steps_per_epoch(members.front().batch_losses);  // alike but for the seed
    for (std::size_t i = 0; i < measurements_.size(); ++i) {
        LineStyle style;
        style.pen = measurements_[i].pen;
        style.markers = true;
        style.hollowMarkers = measurements_[i].pen != Qt::SolidLine;
        style.namedInExport = i == 0;
        line(lineKey(key, i), tr("%1 (median)").arg(name), color, style, measurements_[i].name);
    }
    QColor edge = color;
    edge.setAlpha(2 * kBandAlpha);
    LineStyle boundStyle;
    boundStyle.namedInExport = false;
    QLineSeries* lowest = line(lowestKey(key), tr("%1 (lowest)").arg(name), edge, boundStyle,
                               measurements_.front().name);
    QLineSeries* highest = line(highestKey(key), tr("%1 (highest)").arg(name), edge, boundStyle,
                                measurements_.front().name);
    // Hidden or shown with its first member in the legend; the members'
    // own lines give way to it (and come back with hideSeedGroup).
    const QString firstMember = QString::fromStdString(members.front().id);
    for (std::size_t i = 0; i < measurements_.size(); ++i)
        setLineRun(lineKey(key, i), firstMember);
    setLineRun(lowestKey(key), firstMember);
    setLineRun(highestKey(key), firstMember);
    restoreMemberLines(key);  // members that left the group since it was drawn
    QStringList memberKeys;
    for (const dp::RunRecord& member : members) {
        memberKeys.append(QString::fromStdString(member.id));
        for (std::size_t i = 0; i < measurements_.size(); ++i)
            setLineVisible(lineKey(memberKeys.back(), i), false);
    }
    seedGroupMembers_[key] = memberKeys;
    if (!bands_.contains(key)) {
        auto* band = new QAreaSeries(highest, lowest);
        QColor fill = color;
        fill.setAlpha(kBandAlpha);
        band->setBrush(fill);
        band->setPen(Qt::NoPen);
        chart()->addSeries(band);
        for (QAbstractAxis* axis : chart()->axes())
            band->attachAxis(axis);
        for (QLegendMarker* marker : chart()->legend()->markers(band))
            marker->setVisible(false);
        // The band goes with its edges when the legend hides the group.
        connect(highest, &QAbstractSeries::visibleChanged, band,
                [band, highest] { band->setVisible(highest->isVisible()); });
        bands_.insert(key, band);
    }
    bands_.value(key)->setVisible(highest->isVisible());
    plotSeedGroup(key);
    fitAxes();
}

void EpochMetricChart::hideSeedGroup(const QString& key)
{
    if (!seedGroups_.remove(key))
        return;
    stepsPerEpoch_.remove(key);
    restoreMemberLines(key);
    if (QAreaSeries* band = bands_.take(key)) {
        chart()->removeSeries(band);
        delete band;
    }
    for (std::size_t i = 0; i < measurements_.size(); ++i)
        removeLine(lineKey(key, i));
    removeLine(lowestKey(key));
    removeLine(highestKey(key));
    fitAxes();
}

void EpochMetricChart::restoreMemberLines(const QString& key)
{
    for (const QString& member : seedGroupMembers_.take(key))
        for (std::size_t i = 0; i < measurements_.size(); ++i)
            setLineVisible(lineKey(member, i), true);
}

// Per epoch, over the members that reached it: the median of each
// measurement (at the members' median training seconds on a seconds axis)
// and the lowest and highest of the first.
void EpochMetricChart::plotSeedGroup(const QString& key)
{
    const std::vector<std::vector<dp::EpochMetrics>> members = seedGroups_.value(key);
    std::size_t epochCount = 0;
    for (const auto& epochs : members)
        epochCount = std::max(epochCount, epochs.size());
    std::vector<QList<QPointF>> medians(measurements_.size());
    QList<QPointF> lowest, highest;
    std::vector<double> secondsSoFar(members.size(), 0.0);
    for (std::size_t epoch = 0; epoch < epochCount; ++epoch) {
        std::vector<double> seconds;
        for (std::size_t m = 0; m < members.size(); ++m) {
            if (epoch >= members[m].size())
                continue;
            secondsSoFar[m] += members[m][epoch].seconds;
            seconds.push_back(secondsSoFar[m]);
        }
        const double x = epochEndX(mode_, int(epoch + 1), spreadOf(seconds)->median,
                                   stepsPerEpoch_.value(key));
        if (std::isnan(x))
            continue;
        for (std::size_t i = 0; i < measurements_.size(); ++i) {
            std::vector<double> values;
            for (const auto& epochs : members)
                if (epoch < epochs.size())
                    if (const double value = measurements_[i].metric(epochs[epoch]); std::isfinite(value))
                        values.push_back(value);
            const std::optional<Spread> spread = spreadOf(values);
            if (!spread)
                continue;
            medians[i].append({x, spread->median});
            if (i == 0) {
                lowest.append({x, spread->min});
                highest.append({x, spread->max});
            }
        }
    }
    for (std::size_t i = 0; i < measurements_.size(); ++i)
        setLinePoints(lineKey(key, i), medians[i]);
    setLinePoints(lowestKey(key), lowest);
    setLinePoints(highestKey(key), highest);
}

void EpochMetricChart::setXAxisMode(XAxisMode mode)
{
    mode_ = mode;
    setXTitle(mode);
    setWholeNumberX(mode != XAxisMode::seconds);
    for (auto it = epochs_.cbegin(); it != epochs_.cend(); ++it)
        plot(it.key());
    for (auto it = seedGroups_.cbegin(); it != seedGroups_.cend(); ++it)
        plotSeedGroup(it.key());
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
                if (const double x = epochEndX(mode_, epoch.epoch, seconds, stepsPerEpoch_.value(runKey));
                    !std::isnan(x))
                    points.append({x, value});
        }
        setLinePoints(lineKey(runKey, i), points);
    }
}
