#include "loss_chart.h"

#include <QLineSeries>

#include <algorithm>
#include <cmath>
#include <limits>

namespace {

// Repaints of a growing line cost the GUI thread; four a second look live.
constexpr int kRefreshIntervalMs = 250;

// The largest finite y of `points`; NaN when none.
double topOf(const QList<QPointF>& points)
{
    double top = std::numeric_limits<double>::quiet_NaN();
    for (const QPointF& point : points) {
        if (std::isfinite(point.y()) && !(point.y() <= top))
            top = point.y();
    }
    return top;
}

}  // namespace

RunChartView::Span lossAxisMinimumSpan(double top)
{
    const double span = std::max(0.1 * top, 0.1);
    return {std::max(0.0, top - span), top};
}

LossChart::LossChart(QWidget* parent)
    : RunChartView(tr("Training loss per batch"), tr("loss"), parent)
{
    refreshTimer_.setSingleShot(true);
    refreshTimer_.setInterval(kRefreshIntervalMs);
    connect(&refreshTimer_, &QTimer::timeout, this, &LossChart::refreshNow);
    setYBounds(0, std::numeric_limits<double>::max());
    setStyleKey({{tr("train loss"), keyPen(Qt::SolidLine)}, {tr("test loss"), keyPen(Qt::DotLine)}});
    setXAxisMode(XAxisMode::epochs);
}

void LossChart::startRun(const dp::RunRecord& record, const QColor& color)
{
    currentKey_ = QString::fromStdString(record.id);
    traces_.insert(currentKey_, DecimatedTrace());
    addLossLines(currentKey_, QString::fromStdString(record.label()), color);
}

void LossChart::addLossLines(const QString& key, const QString& runName, const QColor& color)
{
    line(rawLossKey(key), runName, color, {.namedInExport = false, .faint = true});
    line(key, runName, color);
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
        if (trace != traces_.cend()) {
            const QList<QPointF> raw = trace->points(mode_);
            const QList<QPointF> shown = smoothed_ ? trace->points(mode_, smoothingStrength_) : raw;
            topValues_[key] = topOf(shown);
            topValues_[rawLossKey(key)] = smoothed_ ? topOf(raw) : std::numeric_limits<double>::quiet_NaN();
            setLinePoints(key, shown);
            setLinePoints(rawLossKey(key), smoothed_ ? raw : QList<QPointF>());
        }
    }
    stale_.clear();
    fitLossAxes();
}

void LossChart::fitLossAxes()
{
    double top = std::numeric_limits<double>::quiet_NaN();
    for (auto it = topValues_.cbegin(); it != topValues_.cend(); ++it) {
        const QLineSeries* series = lineOf(it.key());
        if (series && series->isVisible() && std::isfinite(it.value()) && !(it.value() <= top))
            top = it.value();
    }
    if (std::isfinite(top)) {
        const Span least = lossAxisMinimumSpan(top);
        setYAlwaysShown(least.min, least.max);  // fits the axes
    } else {
        fitAxes();
    }
}

QString LossChart::testLossKey(const QString& runKey)
{
    return runKey + QStringLiteral("/test loss");
}

QString LossChart::rawLossKey(const QString& runKey)
{
    return runKey + QStringLiteral("/raw loss");
}

void LossChart::showTestLosses(const dp::RunRecord& record, const QColor& color)
{
    const QString key = QString::fromStdString(record.id);
    const bool any = std::any_of(record.epochs.begin(), record.epochs.end(),
                                 [](const dp::EpochMetrics& epoch) { return !std::isnan(epoch.test_loss); });
    if (!any)
        return;
    testEpochs_[key] = record.epochs;
    stepsPerEpoch_[key] = dp::steps_per_epoch(record.batch_losses);
    line(testLossKey(key), QString::fromStdString(record.label()), color,
         {.pen = Qt::DotLine, .markers = true, .namedInExport = false}, tr("test loss"));
    plotTestLosses(key);
    fitLossAxes();
}

void LossChart::plotTestLosses(const QString& key)
{
    const auto epochs = testEpochs_.constFind(key);
    if (epochs == testEpochs_.cend())
        return;
    QList<QPointF> points;
    double seconds = 0;
    for (const dp::EpochMetrics& epoch : *epochs) {
        seconds += epoch.seconds;  // training seconds at the epoch's end, as the batches' x
        const double x = epochEndX(mode_, epoch.epoch, seconds, stepsPerEpoch_.value(key));
        if (!std::isnan(epoch.test_loss) && !std::isnan(x))
            points.append({x, epoch.test_loss});
    }
    topValues_[testLossKey(key)] = topOf(points);
    setLinePoints(testLossKey(key), points);
}

void LossChart::redrawAll()
{
    for (auto it = testEpochs_.cbegin(); it != testEpochs_.cend(); ++it)
        plotTestLosses(it.key());
    for (auto it = traces_.cbegin(); it != traces_.cend(); ++it)
        stale_.insert(it.key());
    refreshNow();
    fitLossAxes();
}

void LossChart::showEpochLosses(const dp::RunRecord& record, const QColor& color)
{
    const QString key = QString::fromStdString(record.id);
    if (traces_.contains(key) || (record.epochs.empty() && record.batch_losses.empty()))
        return;
    DecimatedTrace trace = DecimatedTrace::of(record.batch_losses);
    if (record.batch_losses.empty()) {
        // An older record: a point per epoch, which has no place on a steps axis.
        double seconds = 0;
        for (const dp::EpochMetrics& epoch : record.epochs) {
            seconds += epoch.seconds;
            trace.append({double(epoch.epoch), seconds, epoch.train_loss,
                          std::numeric_limits<double>::quiet_NaN()});
        }
    }
    traces_.insert(key, trace);
    addLossLines(key, QString::fromStdString(record.label()), color);
    stale_.insert(key);
    refreshNow();
}

void LossChart::setRunVisible(const std::string& id, bool visible)
{
    const QString key = QString::fromStdString(id);
    for (const QString& lineKey : {key, rawLossKey(key), testLossKey(key)}) {
        if (hasLine(lineKey))
            setLineVisible(lineKey, visible);
    }
    fitLossAxes();
}

void LossChart::removeRun(const std::string& id)
{
    const QString key = QString::fromStdString(id);
    traces_.remove(key);
    testEpochs_.remove(key);
    stepsPerEpoch_.remove(key);
    stale_.remove(key);
    for (const QString& lineKey : {key, rawLossKey(key), testLossKey(key)}) {
        topValues_.remove(lineKey);
        removeLine(lineKey);
    }
    fitLossAxes();
}

void LossChart::setXAxisMode(XAxisMode mode)
{
    mode_ = mode;
    setXTitle(mode);
    setWholeNumberX(mode != XAxisMode::seconds);
    redrawAll();
}

void LossChart::setSmoothed(bool smoothed)
{
    smoothed_ = smoothed;
    setValueName(smoothed ? tr("smoothed loss") : tr("loss"));
    redrawAll();
}

void LossChart::setSmoothingStrength(double strength)
{
    smoothingStrength_ = std::clamp(strength, 0.0, 0.99);
    if (smoothed_)
        redrawAll();
}
