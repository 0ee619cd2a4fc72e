#include "loss_chart.h"

#include <QLineSeries>

#include <limits>

namespace {

// Repaints of a growing line cost the GUI thread; four a second look live.
constexpr int kRefreshIntervalMs = 250;

}  // namespace

LossChart::LossChart(QWidget* parent)
    : RunChartView(tr("Training loss per batch"), tr("loss"), parent)
{
    refreshTimer_.setSingleShot(true);
    refreshTimer_.setInterval(kRefreshIntervalMs);
    connect(&refreshTimer_, &QTimer::timeout, this, &LossChart::refreshNow);
    setYBounds(0, std::numeric_limits<double>::max());
    setXAxisMode(XAxisMode::epochs);
}

void LossChart::startRun(const dp::RunRecord& record, const QColor& color)
{
    currentKey_ = QString::fromStdString(record.id);
    traces_.insert(currentKey_, DecimatedTrace());
    line(currentKey_, QString::fromStdString(record.label()), color);
}

void LossChart::appendLosses(const QList<LossSample>& samples)
{
    auto trace = traces_.find(currentKey_);
    if (trace == traces_.end())
        return;
    for (const LossSample& sample : samples)
        trace->append(sample);
    stale_.insert(currentKey_);
    if (!refreshTimer_.isActive())
        refreshTimer_.start();
}

void LossChart::refreshNow()
{
    refreshTimer_.stop();
    if (stale_.isEmpty())
        return;
    for (const QString& key : std::as_const(stale_)) {
        const auto trace = traces_.constFind(key);
        if (trace != traces_.cend())
            setLinePoints(key, trace->points(mode_, smoothed_));
    }
    stale_.clear();
    fitAxes();
}

void LossChart::redrawAll()
{
    for (auto it = traces_.cbegin(); it != traces_.cend(); ++it)
        stale_.insert(it.key());
    refreshNow();
}

void LossChart::showEpochLosses(const dp::RunRecord& record, const QColor& color)
{
    const QString key = QString::fromStdString(record.id);
    if (traces_.contains(key) || record.epochs.empty())
        return;
    DecimatedTrace trace;
    double seconds = 0;
    for (const dp::EpochMetrics& epoch : record.epochs) {
        seconds += epoch.seconds;
        trace.append({double(epoch.epoch), seconds, epoch.train_loss});
    }
    traces_.insert(key, trace);
    line(key, QString::fromStdString(record.label()), color);
    stale_.insert(key);
    refreshNow();
}

void LossChart::setRunVisible(const std::string& id, bool visible)
{
    const QString key = QString::fromStdString(id);
    if (hasLine(key)) {
        setLineVisible(key, visible);
        fitAxes();
    }
}

void LossChart::removeRun(const std::string& id)
{
    const QString key = QString::fromStdString(id);
    traces_.remove(key);
    stale_.remove(key);
    removeLine(key);
    fitAxes();
}

void LossChart::setXAxisMode(XAxisMode mode)
{
    mode_ = mode;
    setXTitle(mode);
    setWholeNumberX(mode == XAxisMode::epochs);
    redrawAll();
}

void LossChart::setSmoothed(bool smoothed)
{
    smoothed_ = smoothed;
    setValueName(smoothed ? tr("smoothed loss") : tr("loss"));
    redrawAll();
}
