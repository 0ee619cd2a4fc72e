#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace dp {

enum class DeviceKind { cpu, cuda };

// A device a replica can run on. A CPU device is one core: its worker thread
// is pinned there and its oneDNN work uses that core only, so N replicas never
// oversubscribe the machine. A CUDA device is one GPU, driven by one thread.
struct DeviceInfo {
    std::string id;           // "cpu:0", "cuda:0"
    std::string description;  // e.g. "core 0, AMD EPYC (1 thread)", "NVIDIA H100, 79.1 GiB, 132 SMs"
    std::vector<int> cores;   // CPU: the cores its worker thread may use
    DeviceKind kind = DeviceKind::cpu;
    int cuda_ordinal = -1;  // CUDA: the runtime's device number
};

// Every device of this machine, in id order: the CUDA GPUs the runtime sees
// (none without a driver), then one CPU device per usable core
// (DP_CPU_DEVICES=N overrides the count, for demos of more devices than cores).
std::vector<DeviceInfo> available_devices();

// The cores this process may run on (taskset and cgroup cpusets respected),
// whatever DP_CPU_DEVICES asks: what CPU devices share.
std::vector<int> usable_cores();

// The devices a run uses when none are named: every GPU of `available`, or
// every CPU device when it has no GPU (one run computes on one kind, and the
// GPUs are the fast kind). select_devices({}) and the workbench's first
// launch both choose this way.
std::vector<DeviceInfo> default_devices(const std::vector<DeviceInfo>& available);

// Resolves a --devices list: "cuda:0,cuda:1", "cpu:0,cpu:1", "cuda:all",
// "cpu:all", or empty for default_devices.
// Throws dp::Error naming an unknown or repeated device, or a mix of CPU and
// CUDA devices (one run computes on one kind).
std::vector<DeviceInfo> select_devices(const std::vector<std::string>& ids);

// "NVIDIA H100 80GB HBM3, 79.1 GiB, 132 SMs": a GPU's --list-devices line.
std::string cuda_device_description(const std::string& name, std::size_t memory_bytes,
                                    int multiprocessors);

}  // namespace dp
