#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "nn/layer.h"
#include "config/train_config.h"

namespace dp {

// What a run will hold in host memory, estimated before it allocates, so
// that a run which cannot fit is refused with the estimate instead of being
// killed by the kernel's OOM killer halfway (or never starting at all while
// the machine swaps).
// Bytes are doubles: they multiply user numbers (2^31 samples of 2^31
// features), which would wrap a std::size_t into a small or absurd estimate.
struct MemoryEstimate {
    double data_bytes = 0;     // training and test sets, as floats
    double replica_bytes = 0;  // one replica: parameters, gradients, activations
    int replicas = 0;          // in this process, on the host (CPU devices)

    double total() const { return data_bytes + replica_bytes * replicas; }
    // "about 31.2 GB of memory (data 0.2 GB, 2 replicas of 15.5 GB)"
    std::string describe() const;
};

// The bytes `count` samples of `sample_floats` floats and a label each take.
double data_set_bytes(std::size_t count, std::size_t sample_floats);

// One replica of config.model on `input` samples with `classes` outputs,
// training shards of up to `max_rows` samples.
double replica_bytes(const TrainConfig& config, const SampleShape& input, int classes,
                     int max_rows);

// Memory this machine can give a new run without swapping: MemAvailable of
// /proc/meminfo, or less where this process's cgroup (a container, a systemd
// slice) limits it; 0 when unknown.
std::size_t available_host_memory();

// What the memory cgroups in `cgroup_dirs` still let their processes take
// (limit minus usage, the least over them), from cgroup v2's memory.max and
// memory.current or v1's memory.limit_in_bytes and memory.usage_in_bytes;
// nothing where none sets a limit.
std::optional<std::size_t> cgroup_memory_headroom(
    const std::vector<std::filesystem::path>& cgroup_dirs);

// Throws dp::Error ("this run needs about 31.2 GB of memory (...) but 20.1 GB is free:
// lower the batch size, ...") when `estimate` exceeds `available` (unknown,
// 0: never).
void require_memory(const MemoryEstimate& estimate, std::size_t available);

}  // namespace dp
