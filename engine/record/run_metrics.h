#pragma once

// What a run measures and reports: its epochs, steps, predictions and
// summary. The trainer produces them (train/train_observer.h hands them to
// front ends); records, scaling and the front ends read them.

#include <limits>
#include <cstdint>
#include <string>
#include <vector>

namespace dp {

struct EpochMetrics {
    int epoch = 0;          // 1-based
    double train_loss = 0;  // mean over the epoch's samples
    double train_acc = 0;
    double test_acc = 0;
    double seconds = 0;     // training part only, as d2l's Timer
    // ||parameters - the 1-device run's|| / ||the 1-device run's|| after the
    // same epoch of the same comparison (TrainConfig::drift_from,
    // train/parameter_drift.h); NaN when not measured.
    double parameter_drift = std::numeric_limits<double>::quiet_NaN();
    // Mean cross-entropy over the test set, from the same pass as test_acc
    // (nn.CrossEntropyLoss(reduction='mean')); NaN in records made before it
    // was kept. Last, so that positional initializers stay valid.
    double test_loss = std::numeric_limits<double>::quiet_NaN();
    // Each of this process's devices' thread CPU time over the epoch's
    // training, as a share of its seconds (1: the thread never waited; a
    // device starved of its core, or waiting on the others, reads lower), as
    // W&B's system metrics. Empty in records made before it was kept.
    std::vector<double> device_cpu{};  // an initializer, so that positional ones need not name it
};

struct BatchProgress {
    int epoch = 0;  // 1-based
    int batch = 0;  // 1-based within the epoch
    int batches_per_epoch = 0;
    double loss = 0;  // mean loss of this batch
};

// Where one device spent one training step, in seconds. `allreduce` is the
// time the device's thread waited for the gradient all-reduce, not the time
// the all-reduce took: communication hidden behind backward is not in it
// (GradientReducer::seconds), which is what speedup_gap's parts rely on.
// DataParallel's own phases (0 for ring and naive): `gather`, its outputs
// gathered to device 0 and their gradients scattered back; `broadcast`,
// device 0's parameters sent to every replica after its update (the other
// devices wait there for that serial update).
// `straggler_wait`: a slow device's (config/slow_devices.h) deliberate wait
// after computing, before it joins the all-reduce; 0 on every other device,
// whose wait for it is in their `allreduce`.
struct DeviceStepTiming {
    int shard = 0;  // samples this device got
    double data = 0, forward = 0, backward = 0, allreduce = 0, update = 0;
    double gather = 0, broadcast = 0;
    double straggler_wait = 0;

    // Sums another step's into this one (totals over an epoch or a run), or
    // takes some back out (a run's first epoch, RunSummary::step_epochs).
    DeviceStepTiming& operator+=(const DeviceStepTiming& step) { return add(step, 1); }
    DeviceStepTiming& operator-=(const DeviceStepTiming& step) { return add(step, -1); }

private:
    DeviceStepTiming& add(const DeviceStepTiming& step, int sign) {
        shard += sign * step.shard;
        data += sign * step.data;
        forward += sign * step.forward;
        backward += sign * step.backward;
        allreduce += sign * step.allreduce;
        update += sign * step.update;
        gather += sign * step.gather;
        broadcast += sign * step.broadcast;
        straggler_wait += sign * step.straggler_wait;
        return *this;
    }
};

// One step across all devices: the split of the global batch and the timings.
struct StepReport {
    int epoch = 0, batch = 0;
    std::vector<DeviceStepTiming> devices;  // in device order
};

// The model's classes for the first test images after an epoch: the
// GUI's strip of sample predictions. Images as the dataset holds them.
struct PredictionSamples {
    int epoch = 0;
    int channels = 1, height = 0, width = 0;
    std::vector<float> images;  // count x channels x height x width, in [0, 1]
    std::vector<int> predicted, labels;
};

// A run's time per epoch as comparisons quote it: the median of its steady
// epochs, those after the first, with their range. The first epoch pays for
// kernel tuning, first-touch allocation and cold caches (1.85 s against
// 1.3-1.55 s later in a LeNet run on 2 cores), so it is kept apart; a run of
// one epoch has only that one to go by.
struct EpochTime {
    double median = 0, min = 0, max = 0;  // seconds, over the steady epochs
    int steady_epochs = 0;                // how many the median is of (0: no epoch)
    double first = 0;                     // the first epoch's seconds
};
EpochTime epoch_time(const std::vector<EpochMetrics>& epochs);

struct RunSummary {
    std::vector<EpochMetrics> epochs;
    std::vector<std::string> devices;  // e.g. {"cpu:0"}
    // This process's devices' step phases summed over the epochs' steps (a
    // stopped epoch's too), and how many steps: what the speedup-gap
    // breakdown (scaling/speedup_gap.h) and the scaling predictor divide up.
    // Once a second epoch has finished, the first epoch's steps are taken
    // out, as EpochTime keeps it apart: the totals then cover the steady
    // epochs whose median a comparison quotes (a 2-device LeNet run's first
    // epoch took 3.1 s against 2.4 s, and counted, its warm-up read as
    // "outside the measured steps" and as a slower 2-device step).
    std::vector<DeviceStepTiming> step_totals;
    std::int64_t steps = 0;
    // How many of `epochs`, the last ones, the totals cover; 0 in records
    // written before the first epoch was taken out: all of them.
    int step_epochs = 0;

    double final_test_acc() const;
    // The epochs step_totals cover (step_epochs, or all of them), and their
    // seconds: what a step's share of an epoch is worked out from.
    int timed_epochs() const;
    double timed_epoch_seconds() const;
    EpochTime epoch_time() const { return dp::epoch_time(epochs); }
    // "cpu:0, cpu:1"
    std::string device_list() const;
    // d2l's closing line, with the statistic every view quotes: "test acc:
    // 0.83, 2.71 sec/epoch on [cpu:0] (median of 9 steady epochs, 2.60-2.95)"
    std::string summary_line() const;
};

// d2l's line after each epoch, as dp-train and the workbench's log print it:
// "epoch 3/10: train loss 0.5214, train acc 0.807, test loss 0.5302, test acc 0.812, 4.4 sec"
// (without "test loss" when it is NaN).
std::string epoch_line(const EpochMetrics& epoch, int planned_epochs);

}  // namespace dp
