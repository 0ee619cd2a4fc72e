#pragma once

#include <string>
#include <vector>

#include "config/train_config.h"
#include "config/device_choice.h"
#include "lesson_table.h"

// The settings of each of `lesson`'s runs, in order: dp::TrainConfig's
// defaults, then the lesson's settings, then the run's, on the first N of
// `devices` (dp::select_devices({}): what Compare 1 vs N uses too). Images
// come from `dataDir` (empty: the default folder). With `snapshotDir`, a
// first run on 1 device leaves its parameters there after every epoch and
// each later run at its global batch and learning rate measures its drift
// from them, as Compare 1 vs N does. Throws dp::Error when `devices` are too
// few or a setting's text is not a value of it.
std::vector<dp::TrainConfig> lessonConfigs(const Lesson& lesson, const std::vector<dp::DeviceInfo>& devices,
                                           const std::string& dataDir, const std::string& snapshotDir = {});

// Which comparison each of `lesson`'s runs belongs to (a speedup each over
// its 1-device run, the summary card at its end), -1 for none: a run on 1
// device opens one, and the runs on more devices after it join it, so that
// 1, N, 1, N' is two comparisons, never N and N' taken for repeats.
std::vector<int> lessonComparisons(const Lesson& lesson);

// Seconds a lesson's runs (lessonConfigs) take together on a 2-core machine,
// from their settings alone, to keep every lesson under 2 minutes: each run's
// steps and its training and test images at the seconds per step and per
// image fitted for its model to the lessons' measured times (lesson_runs.cpp),
// a 2-device run counted as long as on 1 device (no gain assumed), a
// straggler's run as much longer as its slowest device. Infinite for a model
// not measured so.
double lessonSecondsOnTwoCores(const std::vector<dp::TrainConfig>& configs);

// The name a lesson's run is shown by where its own settings are not in
// the settings label (dp::RunRecord::settings_label): that label, then each
// such setting ("… · all-reduce dataparallel"); empty where the label says it all.
std::string lessonRunName(const LessonRun& run, const dp::TrainConfig& config);
