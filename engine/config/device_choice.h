#pragma once

// The devices setting as front ends meet it: the machine's devices
// (DeviceInfo, available_devices, default_devices), how a list of ids names
// them (select_devices, replicas "cpu:0x2"), and the rule that one run's
// devices are of one kind (device_kinds_problem). Declared here, in the
// engine's face, with nothing below it, and defined by devices/device.cpp:
// front ends include this header, never devices/ itself, so how a device
// runs its threads stays the engine's (scripts/check-floors follows their
// includes through headers to hold ui/ to it).

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
    int replica = -1;       // which of several replicas on one GPU or core ("cuda:0#1"); -1 alone
};

// Replicas share a device: "cuda:0x2" in a --devices list stands for two
// replicas on GPU 0, "cuda:0#0" and "cuda:0#1", each with its own thread,
// streams and memory, so that the whole multi-device path (split batch,
// all-reduce overlapped with backward, drift, 1-vs-N comparisons) runs on a
// machine with one GPU; on CPU cores ("cpu:0x2") they take turns on one core.
constexpr int kMaxReplicasPerDevice = 16;

// A --devices entry split into the device it names and its replica count:
// "cuda:0x2" -> {"cuda:0", 2}; "cuda:0" and "cuda:0#1" -> {"cuda:0", 1}.
// Throws dp::Error for a count out of range.
struct ReplicatedDevice {
    std::string device;
    int replicas = 1;
};
ReplicatedDevice split_replicas(const std::string& entry);
// The entry for `replicas` replicas of `device` ("cuda:0x2"; the id itself for 1).
std::string replicated_id(const std::string& device, int replicas);
// `device`'s `replicas` replicas ("cuda:0#0", ...), or the device itself for 1.
std::vector<DeviceInfo> replicas_of(const DeviceInfo& device, int replicas);

// Every device of this machine, in id order: the CUDA GPUs the runtime sees
// (none without a driver), then one CPU device per usable core
// (DP_CPU_DEVICES=N overrides the count, for demos of more devices than cores).
std::vector<DeviceInfo> available_devices();

// The cores this process may run on (taskset and cgroup cpusets respected),
// whatever DP_CPU_DEVICES asks: what CPU devices share.
std::vector<int> usable_cores();

// How many distinct cores CPU devices `ids` ("cpu:2", replicas "cpu:0#1")
// ran on, on a machine with `usable` usable cores: available_devices() puts
// cpu:i on core i mod usable, replicas on their device's core. 0 when an id
// is not a CPU device's or `usable` is not known (0).
int distinct_cpu_cores(const std::vector<std::string>& ids, int usable);

// The devices a run uses when none are named: every GPU of `available`, or
// every CPU device when it has no GPU (one run computes on one kind, and the
// GPUs are the fast kind). select_devices({}) and the workbench's first
// launch both choose this way.
std::vector<DeviceInfo> default_devices(const std::vector<DeviceInfo>& available);

// Resolves a --devices list: "cuda:0,cuda:1", "cpu:0,cpu:1", "cuda:all",
// "cpu:all", replicas ("cuda:0x2", "cuda:0#1"), or empty for default_devices.
// Entries are trimmed of spaces. Throws dp::Error naming an empty, unknown or
// repeated entry, a mix of CPU and CUDA devices (one run computes on one
// kind), or replicas on several GPUs (NCCL takes one rank per GPU: replicas
// share one GPU, or each GPU is listed once).
std::vector<DeviceInfo> select_devices(const std::vector<std::string>& ids);

// Empty, or why `devices` cannot train together (CPU and CUDA devices mixed).
std::string device_kinds_problem(const std::vector<DeviceInfo>& devices);

// "NVIDIA H100 80GB HBM3, 79.1 GiB, 132 SMs": a GPU's --list-devices line.
std::string cuda_device_description(const std::string& name, std::size_t memory_bytes,
                                    int multiprocessors);

}  // namespace dp
