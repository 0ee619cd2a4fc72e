#include "train/memory_estimate.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <utility>

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

std::string gigabytes(double bytes) { return format("%.1f GB", bytes / 1e9); }

// The first whole number in `file`; nothing if it holds none ("max": no limit).
std::optional<std::size_t> number_in(const std::filesystem::path& file) {
    std::ifstream in(file);
    std::size_t value = 0;
    if (in >> value) return value;
    return std::nullopt;
}

// v1 writes "no limit" as a page-rounded 2^63 - 1.
constexpr std::size_t kNoLimit = std::size_t(1) << 62;

// This process's cgroup paths, v2's ("0::/user.slice/...") and v1's memory controller's.
std::vector<std::filesystem::path> own_memory_cgroups() {
    const std::filesystem::path root = "/sys/fs/cgroup";
    std::vector<std::filesystem::path> dirs{root, root / "memory"};
    std::ifstream cgroups("/proc/self/cgroup");
    for (std::string line; std::getline(cgroups, line);) {
        const auto path_at = line.find(":/");
        if (path_at == std::string::npos || line.size() == path_at + 2) continue;
        const std::string relative = line.substr(path_at + 2);
        if (line.starts_with("0::")) dirs.push_back(root / relative);
        else if (line.find(":memory:") != std::string::npos) dirs.push_back(root / "memory" / relative);
    }
    return dirs;
}

}  // namespace

std::string MemoryEstimate::describe() const {
    if (replicas == 0) return "about " + gigabytes(total()) + " of memory for its data";
    return "about " + gigabytes(total()) + " of memory (data " + gigabytes(data_bytes) + ", " +
           std::to_string(replicas) + (replicas == 1 ? " replica of " : " replicas of ") +
           gigabytes(replica_bytes) + ")";
}

double data_set_bytes(std::size_t count, std::size_t sample_floats) {
    return double(count) * (double(sample_floats) * sizeof(float) + sizeof(std::int32_t));
}

double replica_bytes(const TrainConfig& config, const SampleShape& input, int classes,
                          int max_rows) {
    auto model = build_model(config.model, input, classes);
    model->declare();
    const std::size_t parameters = model->parameters().total_size();
    // Values and gradients; activations and their gradients for the shard
    // and its input images.
    const double floats = 2.0 * double(parameters) +
                          double(max_rows) * double(model->activation_floats_per_sample() +
                                                    input.size() + std::size_t(classes));
    return floats * sizeof(float) * kAllowance;
}

std::optional<std::size_t> cgroup_memory_headroom(
    const std::vector<std::filesystem::path>& cgroup_dirs) {
    std::optional<std::size_t> least;
    for (const std::filesystem::path& dir : cgroup_dirs)
        for (const auto& [limit_file, usage_file] :
             {std::pair{"memory.max", "memory.current"},
              std::pair{"memory.limit_in_bytes", "memory.usage_in_bytes"}}) {
            const std::optional<std::size_t> limit = number_in(dir / limit_file);
            if (!limit || *limit >= kNoLimit) continue;
            const std::size_t usage = number_in(dir / usage_file).value_or(0);
            // Usage can pass the limit (reclaim pending): nothing is left, not 2^64 - x.
            const std::size_t headroom = usage < *limit ? *limit - usage : 0;
            least = std::min(least.value_or(headroom), headroom);
        }
    return least;
}

std::size_t available_host_memory() {
    std::size_t available = 0;
    std::ifstream meminfo("/proc/meminfo");
    std::string line;
    while (std::getline(meminfo, line)) {
        std::istringstream fields(line);
        std::string key;
        std::size_t kilobytes = 0;
        if (fields >> key >> kilobytes && key == "MemAvailable:") available = kilobytes * 1024;
    }
    if (const auto headroom = cgroup_memory_headroom(own_memory_cgroups()))
        // 1 byte, not 0 (unknown), when the cgroup is full: the run is refused.
        available = std::max<std::size_t>(1, available ? std::min(available, *headroom) : *headroom);
    return available;
}

void require_memory(const MemoryEstimate& estimate, std::size_t available) {
    if (available == 0 || estimate.total() <= double(available)) return;
    const bool data_too_large = estimate.data_bytes > double(available) / 2;
    throw Error("this run needs " + estimate.describe() + " but " + gigabytes(available) +
                " is free: lower " +
                (data_too_large       ? setting("samples") + " or " + setting("input_size")
                 : estimate.replicas > 1 ? setting("batch_size") + " or use fewer devices"
                                         : setting("batch_size")));
}

}  // namespace dp
