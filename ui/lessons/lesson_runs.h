#pragma once

#include <string>
#include <vector>

#include "config/train_config.h"
#include "devices/device.h"
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

// Whether `lesson` measures speedups: its first run is on 1 device and a
// later one on more. Its runs are then one comparison (a speedup each, the
// summary card at the end); the others are runs side by side.
bool comparesDeviceCounts(const Lesson& lesson);
