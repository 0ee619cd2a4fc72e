#include "loss_chart.h"

#include <QLineSeries>

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
    for (const QString& key : std::as_const(stale_))
        redraw(key);
    stale_.clear();
    fitAxes();
}

void LossChart::setRunVisible(const std::string& id, bool visible)
{
    if (QLineSeries* series = existingLine(QString::fromStdString(id))) {
        series->setVisible(visible);
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
    setEmptyXRange(0, mode == XAxisMode::epochs ? plannedEpochs_ : 1);
    for (auto it = traces_.cbegin(); it != traces_.cend(); ++it)
        stale_.insert(it.key());
    refreshNow();
}

void LossChart::setSmoothed(bool smoothed)
{
    smoothed_ = smoothed;
    for (auto it = traces_.cbegin(); it != traces_.cend(); ++it)
        stale_.insert(it.key());
    refreshNow();
}

void LossChart::setPlannedEpochs(int epochs)
{
    plannedEpochs_ = epochs;
    if (mode_ == XAxisMode::epochs)
        setEmptyXRange(0, epochs);
}

void LossChart::redraw(const QString& key)
{
    QLineSeries* series = existingLine(key);
    const auto trace = traces_.constFind(key);
    if (series && trace != traces_.cend())
        series->replace(trace->points(mode_, smoothed_));
}
