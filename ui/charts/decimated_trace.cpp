#include "decimated_trace.h"

#include <algorithm>
#include <cmath>

DecimatedTrace::DecimatedTrace(int maxPoints) : maxPoints_(std::max(maxPoints, 1)) {}

void DecimatedTrace::Bucket::add(const Bucket& other)
{
    const int total = count + other.count;
    const auto mean = [&](double a, double b) { return (a * count + b * other.count) / total; };
    epoch = mean(epoch, other.epoch);
    seconds = mean(seconds, other.seconds);
    loss = mean(loss, other.loss);
    count = total;
}

void DecimatedTrace::append(const LossSample& sample)
{
    filling_.add({sample.epoch, sample.seconds, sample.loss, 1});
    if (filling_.count < bucketSize_)
        return;
    full_.push_back(filling_);
    filling_ = {};
    if (int(full_.size()) < 2 * maxPoints_)
        return;
    // Halve the resolution: each pair of buckets becomes one.
    std::vector<Bucket> merged;
    merged.reserve(full_.size() / 2 + 1);
    for (std::size_t i = 0; i + 1 < full_.size(); i += 2) {
        Bucket pair = full_[i];
        pair.add(full_[i + 1]);
        merged.push_back(pair);
    }
    if (full_.size() % 2 != 0)
        filling_ = full_.back();
    full_ = std::move(merged);
    bucketSize_ *= 2;
}

QList<QPointF> DecimatedTrace::points(XAxisMode mode, double smoothing) const
{
    QList<QPointF> points;
    points.reserve(qsizetype(full_.size()) + 1);
    // Over the drawn points rather than the batches, so that a strength
    // changed after training redraws at once, as TensorBoard's does.
    const double weight = std::clamp(smoothing, 0.0, 0.999);
    double average = 0;
    double debias = 1;  // weight^n: the share of the average still at its start of 0
    const auto append = [&](const Bucket& bucket) {
        average = weight * average + (1 - weight) * bucket.loss;
        debias *= weight;
        const double loss = weight > 0 ? average / (1 - debias) : bucket.loss;
        points.append(QPointF(mode == XAxisMode::epochs ? bucket.epoch : bucket.seconds, loss));
    };
    for (const Bucket& bucket : full_)
        append(bucket);
    // The newest batches show before their bucket fills.
    if (filling_.count > 0)
        append(filling_);
    return points;
}
