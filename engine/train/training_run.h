#pragma once

#include <chrono>

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "backend/kernel_choices.h"
#include "backend/op_profiler.h"
#include "data/dataset.h"
#include "data/epoch_sampler.h"
#include "devices/device.h"
#include "train/replica_group.h"
#include "train/step_trace.h"
#include "config/train_config.h"
#include "train/train_observer.h"
#include "train/trainer.h"

namespace dp {

// One run of Trainer::run, from its settings to its summary. The
// constructor prepares everything (devices, communicator, data, replicas, a
// checkpoint to start from); then Trainer::run steps it epoch by epoch:
//
//   for each epoch: train_epoch (its steps), finish_epoch (metrics,
//   evaluation, checkpoint, trace); then finish (the summary).
//
// Errors throw dp::Error; Trainer::run reports them.
class TrainingRun {
public:
    // `devices`: as the caller resolved them, or empty to select
    // config.devices; `part`: this process's part of a multi-process run,
    // whose communicator the run takes.
    TrainingRun(const TrainConfig& config, const std::optional<std::vector<DeviceInfo>>& devices,
                std::optional<ProcessPart>& part, const std::atomic<bool>& stop_requested,
                TrainObserver& observer);

    // Trains every batch of `epoch` (from 1); false when a stop came first,
    // leaving the epoch partial (not a measurement: finish_epoch is skipped).
    bool train_epoch(int epoch);
    // What an epoch's end records and writes, `seconds` its training time.
    void finish_epoch(int epoch, double seconds);
    // Reports the summary; the run's outcome.
    RunOutcome finish();

private:
    void train_step(int epoch, int batch, std::span<const int> order);
    // Reads the loss sums of the steps since the last read into the
    // epoch's, checking them (NaN, infinite); `batch` is the last step's.
    void read_loss(int epoch, int batch, float lr);
    // --profile-ops: the wrapper that puts a per-op timer on each device, and
    // the timers' start and end around the profiled steps.
    BackendWrapper op_profiler_wrapper();
    enum class ProfiledStep { no, yes, last };
    ProfiledStep profiled_step(std::int64_t step) const;
    void start_profiled_step();
    void end_profiled_step();
    // After an epoch is recorded: step totals over the steady epochs only.
    void keep_steady_step_totals();
    // Asked before each step. The processes of a multi-process run stop at
    // the same step (a signal mpirun relays reaches them one by one): one
    // that stopped alone would leave the others waiting in the next collective.
    bool stop_now();
    // Appends the steps since the last flush to the trace file.
    void flush_trace();
    // Logs why the trace failed, once, and stops tracing.
    void drop_failed_trace();

    const TrainConfig& config_;
    ProcessPart* part_;  // null: a one-process run
    const std::atomic<bool>& stop_requested_;
    TrainObserver& observer_;
    KernelChoices& kernels_;
    TrainTestSets data_;
    std::optional<ReplicaGroup> replicas_;
    RunSummary summary_;
    // The first epoch's step totals and steps, taken out of summary_'s once
    // a second epoch finishes (RunSummary::step_totals says why).
    std::vector<DeviceStepTiming> first_epoch_totals_;
    std::int64_t first_epoch_steps_ = 0;
    std::optional<EpochSampler> sampler_;
    int batches_ = 0;
    // Reused every step, so the step loop allocates nothing.
    StepReport step_report_;
    Backend::LossResult epoch_loss_;  // this process's shards
    // Each step's loss is read after it where that costs no wait (host
    // memory, or DP_CUDA_STEP_SYNC=1); else every kParameterCheckSteps steps
    // and at the epoch's end, so that a GPU's steps queue without a wait.
    bool read_loss_every_step_ = true;
    // DP_CUDA_STEP_SYNC=1: the step as before issue 40, for a GPU check's
    // A/B: its loss read after it, its batch gathered on the host.
    bool step_sync_ = false;
    int rows_since_loss_read_ = 0;  // this process's rows trained since
    double batch_loss_ = 0;         // the mean loss the last read found, for on_batch
    // --profile-ops: each local device's timer, and the run's steps so far.
    std::vector<OpProfiler*> profilers_;
    std::int64_t steps_done_ = 0;
    // Each device thread's CPU seconds, and the time, as the epoch began.
    std::vector<double> epoch_cpu_start_;
    std::chrono::steady_clock::time_point epoch_wall_start_;
    std::optional<StepTrace> trace_;  // this process's devices; rank 0's process writes it
    bool stopped_ = false;
};

}  // namespace dp
