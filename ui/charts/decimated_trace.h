#pragma once

#include <QList>
#include <QPointF>

#include <vector>

#include "loss_sample.h"
#include "x_axis_mode.h"

// A run's per-batch losses in bounded memory: consecutive batches are averaged
// into buckets, and whenever the buckets reach twice `maxPoints` neighbours
// merge and the bucket doubles. A 30-minute run costs as much as a short one,
// and the chart never draws more than 2 x maxPoints points.
class DecimatedTrace {
public:
    explicit DecimatedTrace(int maxPoints = 1000);

    void append(const LossSample& sample);

    // The buckets as chart points. A `smoothing` weight above 0 gives the
    // exponential moving average of the points' losses, TensorBoard's
    // smoothing with its debiased start: each point keeps `smoothing` of the
    // average before it (0: the raw means; 0.99: very smooth).
    QList<QPointF> points(XAxisMode mode, double smoothing = 0) const;
    int samplesPerPoint() const { return bucketSize_; }

private:
    struct Bucket {
        double epoch = 0, seconds = 0, loss = 0;
        int count = 0;

        void add(const Bucket& other);
    };

    int maxPoints_;
    int bucketSize_ = 1;
    std::vector<Bucket> full_;
    Bucket filling_;
};
