#include "decimated_trace.h"

#include <algorithm>
#include <cmath>

DecimatedTrace DecimatedTrace::of(const std::vector<LossSample>& samples)
{
    DecimatedTrace trace;
    for (const LossSample& sample : samples)
        trace.append(sample);
    return trace;
}

double xOf(const LossSample& sample, XAxisMode mode)
{
    switch (mode) {
    case XAxisMode::epochs: return sample.epoch;
    case XAxisMode::seconds: return sample.seconds;
    case XAxisMode::steps: return sample.step;
    }
    return sample.epoch;
}

QList<QPointF> DecimatedTrace::points(XAxisMode mode, double smoothing) const
{
    const std::vector<LossSample> samples = trace_.points();
    QList<QPointF> points;
    points.reserve(qsizetype(samples.size()));
    // Over the drawn points rather than the batches, so that a strength
    // changed after training redraws at once, as TensorBoard's does.
    const double weight = std::clamp(smoothing, 0.0, 0.999);
    double average = 0;
    double debias = 1;  // weight^n: the share of the average still at its start of 0
    for (const LossSample& sample : samples) {
        const double x = xOf(sample, mode);
        if (std::isnan(x))  // not placed on this axis (no steps in an older record)
            continue;
        average = weight * average + (1 - weight) * sample.loss;
        debias *= weight;
        const double loss = weight > 0 ? average / (1 - debias) : sample.loss;
        points.append(QPointF(x, loss));
    }
    return points;
}
