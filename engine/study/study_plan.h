#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/train_config.h"
#include "config/device_choice.h"
#include "study/sweep_grid.h"

namespace dp {

// What a study is: one run, a 1-vs-N comparison (d2l 12.5-12.6) with
// repeats, a sweep over a grid of settings, or a lesson's runs (the
// workbench's Classroom: a list of runs, some of them comparisons).
enum class StudyKind { single_run, comparison, sweep, lesson };
// "single run", "comparison", "sweep", "lesson": the word a study file stores.
const char* study_kind_name(StudyKind kind);
std::optional<StudyKind> parse_study_kind(std::string_view name);

// One run a study trains.
struct PlannedRun {
    TrainConfig config;               // as the Trainer gets it
    std::vector<DeviceInfo> devices;  // its devices, resolved once for the study
    std::size_t point = 0;            // the point of the plan it runs (StudyPlan::points)
    int repeat = 0;                   // 0 for the first time the point runs
    std::string comparison_group;     // the runs that are each other's baseline; "" for none
    std::string name;                 // RunRecord::name; "" labels the run by its settings
};

// A study's runs, resolved once: the machine's devices are read and every
// run's settings checked (validate) before the first trains, so that a bad
// grid fails in a second, not after an hour of runs.
struct StudyPlan {
    StudyKind kind = StudyKind::single_run;
    std::vector<PlannedRun> points;  // one per point, repeat 0 (a comparison: one per device count)
    int repeats = 1;
    SweepGrid grid;                  // a sweep's
    // A sweep's one point to run (dp-train --sweep-index I, one task of a
    // Slurm job array); none: every point.
    std::optional<std::size_t> only_point;

    // The runs in the order they train: repeat after repeat, each repeat the
    // points in order (a comparison's device counts alternate 1, N, 1, N, so
    // that load that drifts hits each count alike). A retune request
    // (TrainConfig::retune) is the first repeat's: the repeats reuse the
    // kernels it measured, so that they compare like with like.
    std::vector<PlannedRun> runs() const;
};

// One run of `config` on `devices` (config.devices resolved by the caller).
StudyPlan single_run_plan(const TrainConfig& config, std::vector<DeviceInfo> devices);
// One run of `config` on the devices config.devices names, resolved here
// (select_devices), its settings checked. Throws dp::Error when they do not hold.
StudyPlan single_run_plan(const TrainConfig& config);

// dp-train --compare COUNTS [--scale-lr] [--repeat R]: the runs of
// comparison_configs (scaling/scaling_comparison.h) on the first N of
// `devices`, one comparison group for every repeat. Throws dp::Error when a
// run's settings do not hold.
StudyPlan comparison_plan(const TrainConfig& base, std::vector<DeviceInfo> devices,
                          const std::vector<int>& device_counts, bool scale_batch_and_lr,
                          int repeats, const std::string& snapshot_dir);
// comparison_plan on the devices base.devices names, resolved here.
StudyPlan comparison_plan(const TrainConfig& base, const std::vector<int>& device_counts,
                          bool scale_batch_and_lr, int repeats, const std::string& snapshot_dir);

// A run a front end asks for by its settings, on the devices config.devices names.
struct RequestedRun {
    TrainConfig config;
    std::string comparison_group;  // PlannedRun's
    std::string name;              // PlannedRun's
};
// A lesson's runs (the workbench's Classroom), in the order given, each on
// its devices resolved once here. Throws dp::Error when a run's settings do not hold.
StudyPlan lesson_plan(const std::vector<RequestedRun>& runs);

// dp-train --sweep GRID [--repeat R] [--sweep-index I]: every point of the
// grid over `base` (sweep_points order), each (batch size, lr) cell a
// comparison group of its own. Throws dp::Error, naming the fix, when the
// grid asks for more devices than `devices` has, a point's settings do not
// hold, or `only_point` is past the last point.
StudyPlan sweep_plan(const TrainConfig& base, std::vector<DeviceInfo> devices,
                     const SweepGrid& grid, int repeats,
                     std::optional<std::size_t> only_point = std::nullopt);

}  // namespace dp
