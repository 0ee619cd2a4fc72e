#include "decimated_trace.h"

#include <algorithm>

namespace {

// Weight of the newest loss in the moving average: about the last 20 batches.
constexpr double kSmoothingWeight = 0.05;

}  // namespace

DecimatedTrace::DecimatedTrace(int maxPoints) : maxPoints_(std::max(maxPoints, 1)) {}

void DecimatedTrace::Bucket::add(const Bucket& other)
{
    const int total = count + other.count;
    const auto mean = [&](double a, double b) { return (a * count + b * other.count) / total; };
    epoch = mean(epoch, other.epoch);
    seconds = mean(seconds, other.seconds);
    loss = mean(loss, other.loss);
    smoothed = mean(smoothed, other.smoothed);
    count = total;
}

void DecimatedTrace::append(const LossSample& sample)
{
    average_ = hasAverage_ ? average_ + kSmoothingWeight * (sample.loss - average_) : sample.loss;
    hasAverage_ = true;
    filling_.add({sample.epoch, sample.seconds, sample.loss, average_, 1});
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

QList<QPointF> DecimatedTrace::points(XAxisMode mode, bool smoothed) const
{
    QList<QPointF> points;
    points.reserve(qsizetype(full_.size()) + 1);
    const auto toPoint = [&](const Bucket& bucket) {
        return QPointF(mode == XAxisMode::epochs ? bucket.epoch : bucket.seconds,
                       smoothed ? bucket.smoothed : bucket.loss);
    };
    for (const Bucket& bucket : full_)
        points.append(toPoint(bucket));
    // The newest batches show before their bucket fills.
    if (filling_.count > 0)
        points.append(toPoint(filling_));
    return points;
}
