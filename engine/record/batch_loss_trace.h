#pragma once

// A run's training loss per batch in bounded memory: what the workbench's
// loss chart draws while the run trains, and what its record keeps
// (RunRecord::batch_losses), so that the chart after a relaunch or an import
// shows the per-batch curve and not only a point per epoch.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "record/run_metrics.h"

namespace dp {

// One batch's mean loss, or the mean of consecutive batches, placed on each x
// axis the charts offer. The order keeps {epoch, seconds, loss} initializers valid.
struct BatchLossPoint {
    double epoch = 0;    // fractional: 1.5 is halfway through epoch 2 (epochs count from 1)
    double seconds = 0;  // training seconds since the run began (d2l's Timer, as EpochMetrics)
    double loss = 0;
    // The global optimizer step, 1-based: (epoch - 1) x batches per epoch +
    // batch. A bucket's mean of both keeps step = epoch x batches per epoch.
    double step = 0;
};

// The point of `progress`, `seconds` training seconds into the run.
BatchLossPoint batch_loss_point(const BatchProgress& progress, double seconds);

// The training seconds of each batch, as EpochMetrics::seconds counts them:
// the completed epochs' seconds plus the time since the epoch's first batch.
class BatchLossClock {
public:
    BatchLossPoint point(const BatchProgress& progress);
    // After each epoch: its measured seconds, from which the next counts on.
    void end_epoch(double epoch_seconds);

private:
    std::optional<std::chrono::steady_clock::time_point> epoch_start_;
    double completed_seconds_ = 0;
};

// Consecutive batches averaged into buckets; whenever the buckets reach
// twice `max_points` neighbours merge and a bucket takes twice the batches.
// A 30-minute run costs as much as a short one: at most 2 x max_points + 1 points.
class BatchLossTrace {
public:
    // What a run's record keeps: at most 2,001 points (about 100 KB of JSON).
    static constexpr int kRecordPoints = 1000;

    explicit BatchLossTrace(int max_points = kRecordPoints);
    void append(const BatchLossPoint& point);
    // The buckets' means, oldest first, the one still filling last.
    std::vector<BatchLossPoint> points() const;
    int samples_per_point() const { return bucket_size_; }

private:
    struct Bucket {
        BatchLossPoint point;
        int count = 0;
        void add(const Bucket& other);
    };

    int max_points_;
    int bucket_size_ = 1;
    std::vector<Bucket> full_;
    Bucket filling_;
};

// A record's batch losses as JSON, an array of [step, epoch, seconds, loss]
// (a NaN loss as null), and read back; `path` names the field in errors.
std::string batch_losses_json(const std::vector<BatchLossPoint>& points);
std::vector<BatchLossPoint> batch_losses_from_json(std::string_view json_array, const std::string& path);

// The optimizer steps of one of the run's epochs, from its batch losses
// (step = epoch x steps per epoch); 0 when it kept none.
double steps_per_epoch(const std::vector<BatchLossPoint>& points);

}  // namespace dp
