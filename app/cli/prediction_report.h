#pragma once

#include <string>
#include <vector>

#include "devices/device.h"
#include "config/train_config.h"
#include "train/train_observer.h"

namespace dp {

// dp-train --predict: after a run or a --compare, the predicted sec/epoch and
// speedup on 1..64 devices (scaling/scaling_predictor.h) for this machine's
// threads (probed now, on CPU devices) and each link preset, with the
// measured runs beside their predictions, and the model's assumptions.
// `runs[i]` ran `configs[i]` on the first configs[i].devices.size() of `devices`.
std::string prediction_report(const std::vector<TrainConfig>& configs,
                              const std::vector<RunSummary>& runs,
                              const std::vector<DeviceInfo>& devices);

}  // namespace dp
