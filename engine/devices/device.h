#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"

namespace dp {

// A device a replica can run on. A CPU device is one core: its worker thread
// is pinned there and its oneDNN work uses that core only, so N replicas never
// oversubscribe the machine.
struct DeviceInfo {
    std::string id;           // "cpu:0"
    std::string description;  // e.g. "core 0, AMD EPYC (1 thread)"
    std::vector<int> cores;   // the cores its worker thread may use
};

// Every device of this machine, in id order: one CPU device per usable core
// (DP_CPU_DEVICES=N overrides the count, for demos of more devices than cores).
std::vector<DeviceInfo> available_devices();

// Resolves a --devices list: "cpu:0,cpu:1", "cpu:all", or empty for the
// whole machine. Throws dp::Error naming an unknown or repeated device.
std::vector<DeviceInfo> select_devices(const std::vector<std::string>& ids);

// The backend that computes on `device`. Call on the device's worker thread.
std::unique_ptr<Backend> make_backend(const DeviceInfo& device);

}  // namespace dp
