#pragma once

#include <QList>
#include <QPointF>

#include <vector>

#include "loss_sample.h"
#include "record/batch_loss_trace.h"
#include "x_axis_mode.h"

// A run's per-batch losses in bounded memory, as the run's record keeps them
// (dp::BatchLossTrace: consecutive batches averaged into buckets that double
// whenever they reach twice `maxPoints`). A 30-minute run costs as much as a
// short one, and the chart never draws more than 2 x maxPoints + 1 points.
class DecimatedTrace {
public:
    explicit DecimatedTrace(int maxPoints = 1000) : trace_(maxPoints) {}
    // The points a run's record kept (dp::RunRecord::batch_losses).
    static DecimatedTrace of(const std::vector<LossSample>& samples);

    void append(const LossSample& sample) { trace_.append(sample); }

    // The buckets as chart points. A `smoothing` weight above 0 gives the
    // exponential moving average of the points' losses, TensorBoard's
    // smoothing with its debiased start: each point keeps `smoothing` of the
    // average before it (0: the raw means; 0.99: very smooth).
    QList<QPointF> points(XAxisMode mode, double smoothing = 0) const;
    int samplesPerPoint() const { return trace_.samples_per_point(); }

private:
    dp::BatchLossTrace trace_;
};

// Where `sample` sits on the x axis of `mode`.
double xOf(const LossSample& sample, XAxisMode mode);
