#pragma once

#include <cstddef>
#include <string>

#include "nn/layer.h"
#include "train/train_config.h"

namespace dp {

// What a run will hold in host memory, estimated before it allocates, so
// that a run which cannot fit is refused with the estimate instead of being
// killed by the kernel's OOM killer halfway (or never starting at all while
// the machine swaps).
struct MemoryEstimate {
    std::size_t data_bytes = 0;     // training and test sets, as floats
    std::size_t replica_bytes = 0;  // one replica: parameters, gradients, activations
    int replicas = 0;               // in this process, on the host (CPU devices)

    std::size_t total() const { return data_bytes + replica_bytes * std::size_t(replicas); }
    // "about 31.2 GB of memory (data 0.2 GB, 2 replicas of 15.5 GB)"
    std::string describe() const;
};

// The bytes `count` samples of `sample_floats` floats and a label each take.
std::size_t data_set_bytes(std::size_t count, std::size_t sample_floats);

// One replica of config.model on `input` samples with `classes` outputs,
// training shards of up to `max_rows` samples.
std::size_t replica_bytes(const TrainConfig& config, const SampleShape& input, int classes,
                          int max_rows);

// Memory this machine can give a new run without swapping (MemAvailable of
// /proc/meminfo); 0 when unknown.
std::size_t available_host_memory();

// Throws dp::Error ("this run needs about 31.2 GB of memory (...) but 20.1 GB is free:
// lower the batch size, ...") when `estimate` exceeds `available` (unknown,
// 0: never).
void require_memory(const MemoryEstimate& estimate, std::size_t available);

}  // namespace dp
