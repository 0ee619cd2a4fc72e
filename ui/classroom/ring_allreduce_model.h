#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "scaling/scaling_predictor.h"

// The ring all-reduce of the Classroom tab, without widgets: which chunk
// each device sends and receives at each step (parallel/collective_schedule.h,
// what the thread communicators run), which devices' gradients each chunk
// sums after a step, and the traffic of one all-reduce of a model's real
// bucket plan, ring and naive (d2l's: everything through device 0), and of
// one step of nn.DataParallel's, which moves a batch's outputs as well.
class RingAllReduceModel {
public:
    // `devices` >= 2 ring members; `bucketFloats`: the floats of each
    // gradient bucket, all-reduced one after the other; `globalBatch`
    // samples of `classes` outputs each, split as the engine splits them
    // (parallel/batch_split.h), for DataParallel's outputs.
    RingAllReduceModel(int devices, std::vector<std::size_t> bucketFloats, int globalBatch = 0,
                       int classes = 10);

    int devices() const { return devices_; }
    // 2(N-1): N-1 of reduce-scatter, then N-1 of all-gather.
    int steps() const { return 2 * (devices_ - 1); }
    bool isReduceScatter(int step) const { return step < devices_ - 1; }

    // The chunk `device` receives from its left neighbour (device - 1 mod N)
    // in `step` (0-based), and the one it sends to its right neighbour.
    int chunkReceived(int device, int step) const;
    int chunkSent(int device, int step) const;
    int leftNeighbour(int device) const { return (device + devices_ - 1) % devices_; }
    int rightNeighbour(int device) const { return (device + 1) % devices_; }

    // Bit d set: chunk `chunk` of `device`'s buffer sums device d's
    // gradient, after the first `doneSteps` steps.
    std::uint32_t contributors(int device, int chunk, int doneSteps) const;
    std::uint32_t allDevices() const { return (std::uint32_t(1) << devices_) - 1; }

    const std::vector<std::size_t>& bucketFloats() const { return bucketFloats_; }
    std::size_t bufferBytes() const;
    // Bytes of chunk `chunk` over all buckets (chunk i of a bucket of n
    // floats: [n*i/N, n*(i+1)/N), as the engine cuts it).
    std::size_t chunkBytes(int chunk) const;
    // What each link (device to its right neighbour) carries in `step`,
    // and over the whole all-reduce: 2(N-1)/N of the buffer.
    std::size_t ringLinkBytes(int device, int step) const;
    std::size_t ringBytesPerLink() const;
    // Naive: 2 steps; device 0's link carries the N-1 other buffers in, then
    // the sum out N-1 times; each other device's link one buffer each way.
    std::size_t naiveDeviceZeroLinkBytes() const { return 2 * std::size_t(devices_ - 1) * bufferBytes(); }
    std::size_t naiveOtherLinkBytes() const { return 2 * bufferBytes(); }
    std::size_t naiveTotalBytes() const { return 2 * std::size_t(devices_ - 1) * bufferBytes(); }
    std::size_t ringTotalBytes() const { return std::size_t(devices_) * ringBytesPerLink(); }

    // nn.DataParallel's step, over the same links as naive: 4 transfers,
    // each through device 0's link: the parameters broadcast from device 0,
    // every device's outputs gathered to it, their gradients scattered
    // back, the gradients reduced to it (then it alone updates).
    static constexpr int kDataParallelSteps = 4;
    // A device's share of the batch's outputs (its shard's rows x classes).
    std::size_t outputBytes(int device) const;
    // Device 0's link, per step: N-1 buffers of parameters (or of
    // gradients), and the other devices' outputs (or their gradients).
    std::size_t dataParallelDeviceZeroParameterBytes() const { return std::size_t(devices_ - 1) * bufferBytes(); }
    std::size_t dataParallelDeviceZeroOutputBytes() const;
    // Over the step: every byte crosses device 0's link, so it is the busiest and carries all.
    std::size_t dataParallelTotalBytes() const;

    // Seconds of one DataParallel step's transfers over `link`, as the
    // scaling predictor costs them (scaling_predictor.h).
    double dataParallelSeconds(const dp::LinkModel& link) const;

    // Seconds of one ring step, and of the whole ring and naive all-reduce,
    // over `link` (scaling_predictor.h's cost of each bucket, summed).
    double ringStepSeconds(const dp::LinkModel& link) const;
    double allReduceSeconds(dp::AllReduceStrategy algorithm, const dp::LinkModel& link) const;

private:
    int devices_;
    std::vector<std::size_t> bucketFloats_;
    int globalBatch_;
    int classes_;
};

// The floats of each gradient bucket of `model` on Fashion-MNIST images
// (the model registry's input), planned as the engine plans them
// (parallel/bucket_plan.h, train/replica_group.cpp) with a cap of
// `bucketMegabytes`; one bucket of the registry's parameter count for a
// model that cannot be built so. Throws dp::Error for an unknown model.
std::vector<std::size_t> gradientBucketFloats(const std::string& model, double bucketMegabytes);

// "0+1+2" for up to three devices, "all" for every one, "4 of 8" otherwise.
std::string contributorsLabel(std::uint32_t contributors, int devices);
