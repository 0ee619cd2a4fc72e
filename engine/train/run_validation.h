#pragma once

// Checking a run's settings with its devices resolved once per run:
// select_devices reads /proc/cpuinfo and asks the CUDA runtime for its GPUs
// every time, and validate(config) calls it. The callers that resolve the
// devices (dp-train, Trainer) pass them down instead.
//
// These are validate(config)'s checks (train/train_config.h), in its order
// and with its messages, except that the device count comes from the
// resolved list. They live here only while train_config.cpp is rewritten:
// there, validate should take the resolved devices, and this file go.

#include <vector>

#include "devices/device.h"
#include "train/train_config.h"

namespace dp {

// validate(config) for a run on `devices`, config.devices already resolved
// (select_devices): the same dp::Error for the same settings.
void validate(const TrainConfig& config, const std::vector<DeviceInfo>& devices);

// validate(config), returning select_devices(config.devices), which it
// resolves once, where validate checks the device count.
std::vector<DeviceInfo> validate_and_select_devices(const TrainConfig& config);

}  // namespace dp
