#pragma once

// The harness of the self-test's training checks: data subsets, configs,
// the step loop and the comparisons, on any devices. dp-gpu-selftest runs
// them on GPUs (gpu_checks.h); tests/train/test_selftest_harness runs them
// on CPU devices in CI, so that a fault of the harness itself (a dangling
// batch order once made every GPU run fail in its set-up) fails on a
// machine without a GPU. Each returns a one-line summary and throws
// dp::Error naming the first failure.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/forwarding_backend.h"
#include "data/dataset.h"
#include "config/train_config.h"

namespace dp::selftest {

// The batch of every training check.
constexpr int kBatch = 64;

// The first 20 batches of Fashion-MNIST's training set and 512 test images;
// dp::Error naming the fix when the data set is not installed.
TrainTestSets training_subset();

// LeNet at batch kBatch on `devices`, with small buckets (several even for
// LeNet, so the overlapped all-reduce runs more than once a step).
TrainConfig lenet_config(std::vector<std::string> devices);

// Trains LeNet on `devices` for `steps` batches of `data` in file order from
// the seed's start, checking after every step that every replica holds the
// same bits; returns replica 0's parameters.
std::vector<float> train_lenet(const std::vector<std::string>& devices, const TrainTestSets& data,
                               int steps);

// LeNet on `devices` ends `steps` steps within `tolerance` (max_relative_difference)
// of LeNet on `reference`, at the same global batch.
std::string training_matches(const std::vector<std::string>& reference,
                             const std::vector<std::string>& devices, const TrainTestSets& data,
                             int steps, double tolerance);

// What the device side has allocated so far, one number per device (driver
// allocations, free memory): equal before and after steps that allocate nothing.
using MemoryProbe = std::function<std::vector<std::size_t>()>;

// Ten LeNet steps on `devices` after the first leave `probe`'s numbers unchanged.
std::string steps_allocate_nothing(const std::vector<std::string>& devices,
                                   const TrainTestSets& data, const MemoryProbe& probe);

// dp-train's own step (Replica::train_step, the epoch's order resident and
// each batch gathered on the device) for LeNet on `device`: `epochs` epochs
// of the first `samples` training images in file order at batch kBatch, the
// last batch of each epoch partial when kBatch does not divide `samples`.
// `backend`, when given, replaces each device's backend (the step_graphs
// check's CUDA backends with graphs on and off). Returns what each step's
// Backend::run_step answered, the parameters and the loss summed over every step.
struct StepActionsRun {
    std::vector<StepGraphAction> actions;
    std::vector<float> parameters;
    Backend::LossResult loss;
};
StepActionsRun train_lenet_resident(const std::string& device, const TrainTestSets& data,
                                    int samples, int epochs, const BackendWrapper& backend = {});

// "warm-up capture replay ...": the actions' names.
std::string step_actions_text(const std::vector<StepGraphAction>& actions);

}  // namespace dp::selftest
