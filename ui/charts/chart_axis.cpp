#include "chart_axis.h"

#include <QRegularExpression>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

namespace {

// Multiples of `step` in [min, max].
std::vector<double> multiplesIn(double min, double max, double step)
{
    std::vector<double> values;
    const double first = std::ceil(min / step - 1e-9);
    const double last = std::floor(max / step + 1e-9);
    for (double k = first; k <= last; ++k)
        values.push_back(k * step);
    return values;
}

// "0.25", "12", "1e-7": short, and unique for distinct round numbers.
QString tickLabel(double value)
{
    if (std::abs(value) < 1e-12)
        return QStringLiteral("0");
    const double magnitude = std::abs(value);
    if (magnitude >= 1e-3 && magnitude < 1e5)
        return QString::number(value, 'g', 6);
    // 1e-07 -> 1e-7, 2e+06 -> 2e6
    static const QRegularExpression exponentZeros(QStringLiteral("e([+-])0*(\\d)"));
    QString text = QString::number(value, 'g', 3).replace(exponentZeros, QStringLiteral("e\\1\\2"));
    return text.replace(QStringLiteral("e+"), QStringLiteral("e"));
}

}  // namespace

double ChartAxis::niceStep(double span, int maxIntervals)
{
    const double raw = span / std::max(maxIntervals, 1);
    if (!(raw > 0) || !std::isfinite(raw))
        return 1;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    for (const double multiple : {1.0, 2.0, 5.0}) {
        if (multiple * magnitude >= raw * (1 - 1e-9))
            return multiple * magnitude;
    }
    return 10 * magnitude;
}

ChartAxis::ChartAxis(QObject* parent)
    : QCategoryAxis(parent),
      lowerBound_(std::numeric_limits<double>::lowest()),
      upperBound_(std::numeric_limits<double>::max())
{
    setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    setTruncateLabels(false);
    showPositions(0, 1);
}

void ChartAxis::setLogScale(bool log)
{
    log_ = log;
    relabel();
}

double ChartAxis::position(double value) const
{
    if (!log_)
        return value;
    return value > 0 ? std::log10(value) : std::numeric_limits<double>::quiet_NaN();
}

double ChartAxis::value(double position) const
{
    return log_ ? std::pow(10.0, position) : position;
}

void ChartAxis::setBounds(double min, double max)
{
    lowerBound_ = min;
    upperBound_ = max;
}

void ChartAxis::setWholeNumberTicks(bool wholeNumbers)
{
    wholeNumbers_ = wholeNumbers;
    relabel();
}

void ChartAxis::setMaxTicks(int ticks)
{
    maxTicks_ = std::max(ticks, 2);
    relabel();
}

void ChartAxis::fit(double low, double high, double headroom)
{
    if (log_) {
        double lo = position(std::max(low, lowerBound_));
        double hi = position(std::min(high, upperBound_));
        if (!std::isfinite(lo) || !std::isfinite(hi) || lo > hi) {
            lo = -1;
            hi = 0;
        }
        // At least a fifth of a decade, so that a flat line does not fill the height.
        constexpr double kMinDecades = 0.2;
        if (hi - lo < kMinDecades) {
            const double middle = (lo + hi) / 2;
            lo = middle - kMinDecades / 2;
            hi = middle + kMinDecades / 2;
        }
        const double pad = (hi - lo) * headroom;
        showPositions(lo - pad, hi + pad);
        return;
    }
    if (!(low <= high)) {  // no data
        showPositions(std::max(0.0, lowerBound_), std::min(1.0, upperBound_));
        return;
    }
    if (high - low < 1e-12) {
        // One value: a tenth of it either side (or ±1 around zero).
        const double half = std::abs(high) > 1e-12 ? std::abs(high) * 0.1 : 1;
        low -= half;
        high += half;
    }
    const double pad = (high - low) * headroom;
    double lo = std::max(low - pad, lowerBound_);
    double hi = std::min(high + pad, upperBound_);
    // The ends round to half the labels' step or finer: to whole labels, a
    // 1-4 speedup would get the axis 0-6.
    double step = niceStep(hi - lo, 2 * maxTicks_);
    if (wholeNumbers_ && hi - lo >= 2)
        step = std::max(step, 1.0);
    lo = std::max(std::floor(lo / step + 1e-9) * step, lowerBound_);
    hi = std::min(std::ceil(hi / step - 1e-9) * step, upperBound_);
    showPositions(lo, hi);
}

void ChartAxis::showPositions(double min, double max)
{
    if (!(max > min))
        max = min + 1;
    setRange(min, max);
    relabel();
}

void ChartAxis::relabel()
{
    const double lo = min();
    const double hi = max();
    std::vector<double> values;  // the labelled values, ascending
    if (log_) {
        for (double decade = std::floor(lo); decade <= std::ceil(hi); ++decade) {
            for (const double multiple : {1.0, 2.0, 5.0}) {
                const double value = multiple * std::pow(10.0, decade);
                if (position(value) >= lo - 1e-9 && position(value) <= hi + 1e-9)
                    values.push_back(value);
            }
        }
        if (int(values.size()) > maxTicks_) {
            // Decades only, every few when even those crowd.
            const double every = std::ceil((std::floor(hi) - std::ceil(lo) + 1) / maxTicks_);
            values.clear();
            for (const double decade : multiplesIn(lo, hi, every))
                values.push_back(std::pow(10.0, decade));
        } else if (values.size() < 2) {
            // Zoomed in to a fraction of a decade: round values, linearly spaced.
            const double from = value(lo), to = value(hi);
            values = multiplesIn(from, to, niceStep(to - from, maxTicks_));
        }
    } else {
        double step = niceStep(hi - lo, maxTicks_);
        if (wholeNumbers_)  // half an epoch or half a device is no tick
            step = std::max(step, 1.0);
        values = multiplesIn(lo, hi, step);
    }

    std::vector<std::pair<QString, double>> ticks;
    for (const double tick : values) {
        const double at = position(tick);
        if (std::isfinite(at) && (ticks.empty() || at > ticks.back().second))
            ticks.emplace_back(tickLabel(tick), at);
    }
    // Unchanged labels (a live chart fits its axes several times a second)
    // cost no relayout.
    const QStringList current = categoriesLabels();
    bool same = int(ticks.size()) == current.size() && startValue() < lo;
    for (std::size_t i = 0; same && i < ticks.size(); ++i)
        same = current[qsizetype(i)] == ticks[i].first && endValue(ticks[i].first) == ticks[i].second;
    if (same)
        return;
    for (const QString& label : current)
        remove(label);
    // The first label sits where its category ends, so the first category
    // starts below the axis: every tick, the lowest included, gets a label.
    setStartValue(lo - (hi - lo));
    for (const auto& [label, at] : ticks)
        append(label, at);
}
