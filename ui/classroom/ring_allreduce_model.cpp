#include "ring_allreduce_model.h"

#include <algorithm>
#include <bit>

#include "core/error.h"
#include "models/model_info.h"
#include "parallel/batch_split.h"
#include "parallel/bucket_plan.h"
#include "parallel/collective_schedule.h"

namespace {

// The ring schedule on a buffer of one float per chunk: a transfer's begin
// is the chunk's index.
int scheduledChunk(int devices, int device, int step)
{
    const auto schedule = dp::CollectiveSchedule::all_reduce("ring", devices, std::size_t(devices));
    return int(schedule.transfer(device, step, 0).begin);
}

}  // namespace

RingAllReduceModel::RingAllReduceModel(int devices, std::vector<std::size_t> bucketFloats,
                                       int globalBatch, int classes)
    : devices_(std::clamp(devices, 2, 31)),
      bucketFloats_(std::move(bucketFloats)),
      globalBatch_(std::max(0, globalBatch)),
      classes_(std::max(0, classes))
{
}

int RingAllReduceModel::chunkReceived(int device, int step) const
{
    return scheduledChunk(devices_, device, step);
}

int RingAllReduceModel::chunkSent(int device, int step) const
{
    return chunkReceived(rightNeighbour(device), step);
}

std::uint32_t RingAllReduceModel::contributors(int device, int chunk, int doneSteps) const
{
    // Every device's chunks, as masks, stepped through the schedule.
    std::vector<std::vector<std::uint32_t>> held(static_cast<std::size_t>(devices_));
    for (int d = 0; d < devices_; ++d)
        held[std::size_t(d)].assign(std::size_t(devices_), std::uint32_t(1) << d);
    for (int step = 0; step < std::min(doneSteps, steps()); ++step) {
        const auto before = held;
        for (int d = 0; d < devices_; ++d) {
            const auto c = std::size_t(chunkReceived(d, step));
            const std::uint32_t incoming = before[std::size_t(leftNeighbour(d))][c];
            held[std::size_t(d)][c] = isReduceScatter(step) ? (before[std::size_t(d)][c] | incoming) : incoming;
        }
    }
    return held[std::size_t(device)][std::size_t(chunk)];
}

std::size_t RingAllReduceModel::bufferBytes() const
{
    std::size_t floats = 0;
    for (std::size_t bucket : bucketFloats_)
        floats += bucket;
    return floats * sizeof(float);
}

std::size_t RingAllReduceModel::chunkBytes(int chunk) const
{
    const auto n = std::size_t(devices_), i = std::size_t(chunk);
    std::size_t floats = 0;
    for (std::size_t bucket : bucketFloats_)
        floats += bucket * (i + 1) / n - bucket * i / n;
    return floats * sizeof(float);
}

std::size_t RingAllReduceModel::ringLinkBytes(int device, int step) const
{
    return chunkBytes(chunkSent(device, step));
}

std::size_t RingAllReduceModel::ringBytesPerLink() const
{
    std::size_t bytes = 0;
    for (int step = 0; step < steps(); ++step)
        bytes += ringLinkBytes(0, step);
    return bytes;
}

double RingAllReduceModel::ringStepSeconds(const dp::LinkModel& link) const
{
    return allReduceSeconds(dp::AllReduceStrategy::ring, link) / steps();
}

double RingAllReduceModel::allReduceSeconds(dp::AllReduceStrategy algorithm,
                                            const dp::LinkModel& link) const
{
    double seconds = 0;
    for (std::size_t bucket : bucketFloats_)
        seconds += dp::all_reduce_seconds(algorithm, link, devices_, double(bucket * sizeof(float)));
    return seconds;
}

std::size_t RingAllReduceModel::outputBytes(int device) const
{
    const int rows = dp::batch_shard(globalBatch_, devices_, device).rows;
    return std::size_t(rows) * std::size_t(classes_) * sizeof(float);
}

std::size_t RingAllReduceModel::dataParallelDeviceZeroOutputBytes() const
{
    std::size_t bytes = 0;
    for (int device = 1; device < devices_; ++device)
        bytes += outputBytes(device);
    return bytes;
}

std::size_t RingAllReduceModel::dataParallelTotalBytes() const
{
    // Parameters out and gradients in; outputs in and their gradients out.
    return 2 * dataParallelDeviceZeroParameterBytes() + 2 * dataParallelDeviceZeroOutputBytes();
}

double RingAllReduceModel::dataParallelSeconds(const dp::LinkModel& link) const
{
    return dp::dataparallel_step_seconds(link, devices_, double(bufferBytes()),
                                         double(dataParallelDeviceZeroOutputBytes() + outputBytes(0)));
}

std::vector<std::size_t> gradientBucketFloats(const std::string& model, double bucketMegabytes)
{
    const dp::ModelInfo& info = dp::model_info(model);
    const auto bucketBytes = std::size_t(bucketMegabytes * 1024 * 1024);
    try {
        std::vector<std::size_t> floats;
        for (const dp::GradientBucket& bucket :
             dp::plan_buckets(dp::model_gradient_spans(model), bucketBytes,
                              std::min<std::size_t>(bucketBytes, 1024 * 1024)))
            floats.push_back(bucket.size);
        if (!floats.empty())
            return floats;
        return {info.parameters};
    } catch (const dp::Error&) {
        return {info.parameters};
    }
}

std::string contributorsLabel(std::uint32_t contributors, int devices)
{
    const int count = std::popcount(contributors);
    if (count == devices)
        return "all";
    if (count > 3)
        return std::to_string(count) + " of " + std::to_string(devices);
    std::string label;
    for (int d = 0; d < devices; ++d) {
        if (!(contributors & (std::uint32_t(1) << d)))
            continue;
        if (!label.empty())
            label += '+';
        label += std::to_string(d);
    }
    return label;
}
