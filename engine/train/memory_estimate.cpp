#include "train/memory_estimate.h"

#include <fstream>
#include <sstream>

#include "core/error.h"
#include "core/format.h"
#include "core/setting_ref.h"
#include "models/model_registry.h"

namespace dp {
namespace {

// Allowance for what the declared shapes do not show: layers' inner
// activations (a residual block keeps several), backend workspaces and
// reorders, the all-reduce's buckets, the allocator's slack. Calibrated
// against peak resident memory (`/usr/bin/time -f %M`, 2026-11-23): ResNet-18
// at batch 1024 on one device peaked at 10.1 GB (the declared shapes say
// 2.9 GB), at batch 256 on two devices at 2.9 GB; LeNet's estimate then lies
// above its peak too.
constexpr double kAllowance = 3.5;

std::string gigabytes(std::size_t bytes) { return format("%.1f GB", double(bytes) / 1e9); }

}  // namespace

std::string MemoryEstimate::describe() const {
    if (replicas == 0) return "about " + gigabytes(total()) + " of memory for its data";
    return "about " + gigabytes(total()) + " of memory (data " + gigabytes(data_bytes) + ", " +
           std::to_string(replicas) + (replicas == 1 ? " replica of " : " replicas of ") +
           gigabytes(replica_bytes) + ")";
}

std::size_t data_set_bytes(std::size_t count, std::size_t sample_floats) {
    return count * (sample_floats * sizeof(float) + sizeof(std::int32_t));
}

std::size_t replica_bytes(const TrainConfig& config, const SampleShape& input, int classes,
                          int max_rows) {
    auto model = build_model(config.model, input, classes);
    model->declare();
    const std::size_t parameters = model->parameters().total_size();
    // Values and gradients; activations and their gradients for the shard
    // and its input images.
    const double floats = 2.0 * double(parameters) +
                          double(max_rows) * double(model->activation_floats_per_sample() +
                                                    input.size() + std::size_t(classes));
    return std::size_t(floats * sizeof(float) * kAllowance);
}

std::size_t available_host_memory() {
    std::ifstream meminfo("/proc/meminfo");
    std::string line;
    while (std::getline(meminfo, line)) {
        std::istringstream fields(line);
        std::string key;
        std::size_t kilobytes = 0;
        if (fields >> key >> kilobytes && key == "MemAvailable:") return kilobytes * 1024;
    }
    return 0;
}

void require_memory(const MemoryEstimate& estimate, std::size_t available) {
    if (available == 0 || estimate.total() <= available) return;
    const bool data_too_large = estimate.data_bytes > available / 2;
    throw Error("this run needs " + estimate.describe() + " but " + gigabytes(available) +
                " is free: lower " +
                (data_too_large       ? setting("samples") + " or " + setting("input_size")
                 : estimate.replicas > 1 ? setting("batch_size") + " or use fewer devices"
                                         : setting("batch_size")));
}

}  // namespace dp
