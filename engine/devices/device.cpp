#include "devices/device.h"

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <set>

#include <sched.h>

#include "core/cpu_model.h"
#include "core/error.h"
#include "core/format.h"
#include "module/cuda_module.h"

namespace dp {

std::vector<int> usable_cores() {
    cpu_set_t set;
    std::vector<int> cores;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        for (int core = 0; core < CPU_SETSIZE; ++core)
            if (CPU_ISSET(core, &set)) cores.push_back(core);
    if (cores.empty()) cores.push_back(0);
    return cores;
}

namespace {

// DP_CPU_DEVICES=N asks for N CPU devices whatever the core count, spread
// over the cores round-robin: how tests and classroom demos show 3 or 4
// devices on a 2-core machine (slower, since devices then share cores).
int cpu_device_count(int cores) {
    const char* text = std::getenv("DP_CPU_DEVICES");
    if (!text || !*text) return cores;
    char* end = nullptr;
    const long count = std::strtol(text, &end, 10);
    if (*end != '\0' || count < 1 || count > 256)
        throw Error(std::string("DP_CPU_DEVICES must be a device count from 1 to 256 (got '") +
                    text + "'): set a count, or unset it for one device per core");
    return int(count);
}

std::vector<DeviceInfo> gpu_devices() {
    std::vector<DeviceInfo> devices;
    const CudaModule* cuda = cuda_module();
    if (!cuda) return devices;  // cuda_module_problem() says why
    for (const CudaDeviceProperties& gpu : cuda->devices())
        devices.push_back({.id = "cuda:" + std::to_string(gpu.ordinal),
                           .description = cuda_device_description(gpu.name, gpu.memory_bytes,
                                                                  gpu.multiprocessors),
                           .cores = {},
                           .kind = DeviceKind::cuda,
                           .cuda_ordinal = gpu.ordinal});
    return devices;
}

std::vector<DeviceInfo> of_kind(const std::vector<DeviceInfo>& devices, DeviceKind kind) {
    std::vector<DeviceInfo> chosen;
    std::copy_if(devices.begin(), devices.end(), std::back_inserter(chosen),
                 [kind](const DeviceInfo& device) { return device.kind == kind; });
    return chosen;
}

// Why a cuda: device is not there: the CUDA module's problem, or no GPU.
std::string why_no_gpu() {
    const std::string problem = cuda_module_problem();
    return problem.empty() ? "no CUDA GPU or driver found" : problem;
}

std::string unknown_device_message(const std::string& id, const std::vector<DeviceInfo>& all) {
    std::string known;
    for (const auto& d : all) known += (known.empty() ? "" : ", ") + d.id;
    const bool no_gpus = of_kind(all, DeviceKind::cuda).empty();
    const std::string why = id.starts_with("cuda:") && no_gpus ? ": " + why_no_gpu() : "";
    return "no device " + id + " on this machine" + why + " (available: " + known +
           "; see --list-devices)";
}

}  // namespace

std::string cuda_device_description(const std::string& name, std::size_t memory_bytes,
                                    int multiprocessors) {
    return name + ", " + format("%.1f GiB", double(memory_bytes) / double(1ull << 30)) + ", " +
           std::to_string(multiprocessors) + " SMs";
}

std::vector<DeviceInfo> available_devices() {
    const std::string model = cpu_model_name();
    const std::vector<int> cores = usable_cores();
    const int count = cpu_device_count(int(cores.size()));
    std::vector<DeviceInfo> devices = gpu_devices();
    for (int index = 0; index < count; ++index) {
        const int core = cores[index % cores.size()];
        devices.push_back({"cpu:" + std::to_string(index),
                           "core " + std::to_string(core) + ", " + model, {core}});
    }
    return devices;
}

int distinct_cpu_cores(const std::vector<std::string>& ids, int usable) {
    if (usable <= 0) return 0;
    std::set<int> cores;
    for (const std::string& id : ids) {
        if (id.rfind("cpu:", 0) != 0) return 0;
        try {
            cores.insert(std::stoi(id.substr(4)) % usable);  // stops at a replica's '#'
        } catch (const std::exception&) {
            return 0;
        }
    }
    return int(cores.size());
}

std::vector<DeviceInfo> default_devices(const std::vector<DeviceInfo>& available) {
    const auto gpus = of_kind(available, DeviceKind::cuda);
    return gpus.empty() ? of_kind(available, DeviceKind::cpu) : gpus;
}

namespace {

std::string trimmed(const std::string& text) {
    const auto first = text.find_first_not_of(" \t");
    if (first == std::string::npos) return "";
    return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

// The number after `separator` in `entry` ("cuda:0x2" -> 2), or -1 when the
// entry has no such suffix; throws for a suffix that is not a replica count.
int replica_suffix(const std::string& entry, char separator, int low, const char* what) {
    const auto at = entry.rfind(separator);
    if (at == std::string::npos || at + 1 >= entry.size() ||
        entry.find_first_not_of("0123456789", at + 1) != std::string::npos)
        return -1;
    const std::string digits = entry.substr(at + 1);
    const int value = digits.size() > 3 ? 1000 : std::stoi(digits);
    if (value < low || value >= low + kMaxReplicasPerDevice)
        throw Error("device " + entry + ": " + what + " must be from " + std::to_string(low) +
                    " to " + std::to_string(low + kMaxReplicasPerDevice - 1));
    return value;
}

DeviceInfo as_replica(DeviceInfo device, int replica) {
    // Appended in two steps: GCC 12 warns -Wrestrict, falsely, on "#" + to_string (its bug 105651).
    device.id += '#';
    device.id += std::to_string(replica);
    device.description = "replica " + std::to_string(replica) + " on " + device.description;
    device.replica = replica;
    return device;
}

// The devices one --devices entry stands for.
std::vector<DeviceInfo> resolve_entry(const std::string& entry, const std::vector<DeviceInfo>& all) {
    const auto find = [&](const std::string& id) -> const DeviceInfo& {
        auto it = std::find_if(all.begin(), all.end(), [&](const auto& d) { return d.id == id; });
        if (it == all.end()) throw Error(unknown_device_message(id, all));
        return *it;
    };
    if (all.end() != std::find_if(all.begin(), all.end(), [&](const auto& d) { return d.id == entry; }))
        return {find(entry)};
    if (const int count = replica_suffix(entry, 'x', 1, "the replica count"); count > 0)
        return replicas_of(find(entry.substr(0, entry.rfind('x'))), count);
    if (const int replica = replica_suffix(entry, '#', 0, "the replica number"); replica >= 0)
        return {as_replica(find(entry.substr(0, entry.rfind('#'))), replica)};
    return {find(entry)};  // throws: unknown
}

// GPUs in one run are either all different (NCCL, one rank per GPU) or all
// replicas on one GPU (device copies, replica_copy_communicator.h).
void check_gpu_sharing(const std::vector<DeviceInfo>& chosen) {
    std::set<int> ordinals;
    for (const DeviceInfo& device : chosen)
        if (device.kind == DeviceKind::cuda) ordinals.insert(device.cuda_ordinal);
    const std::size_t gpus = std::count_if(chosen.begin(), chosen.end(), [](const auto& d) {
        return d.kind == DeviceKind::cuda;
    });
    if (ordinals.size() > 1 && ordinals.size() < gpus)
        throw Error("replicas on several GPUs: NCCL takes one rank per GPU, so list each GPU "
                    "once (cuda:0,cuda:1) or put every replica on one GPU (cuda:0x4)");
}

}  // namespace

ReplicatedDevice split_replicas(const std::string& entry) {
    if (const int count = replica_suffix(entry, 'x', 1, "the replica count"); count > 0)
        return {entry.substr(0, entry.rfind('x')), count};
    if (replica_suffix(entry, '#', 0, "the replica number") >= 0)
        return {entry.substr(0, entry.rfind('#')), 1};
    return {entry, 1};
}

std::string replicated_id(const std::string& device, int replicas) {
    return replicas > 1 ? device + "x" + std::to_string(replicas) : device;
}

std::vector<DeviceInfo> replicas_of(const DeviceInfo& device, int replicas) {
    if (replicas <= 1) return {device};
    std::vector<DeviceInfo> all;
    for (int replica = 0; replica < replicas; ++replica) all.push_back(as_replica(device, replica));
    return all;
}

std::string device_kinds_problem(const std::vector<DeviceInfo>& devices) {
    for (const DeviceInfo& device : devices)
        if (device.kind != devices.front().kind)
            return "devices " + devices.front().id + " and " + device.id +
                   " are of different kinds: a run uses CPU devices or CUDA devices, not both";
    return {};
}

std::vector<DeviceInfo> select_devices(const std::vector<std::string>& ids) {
    const auto all = available_devices();
    const auto gpus = of_kind(all, DeviceKind::cuda);
    if (ids.empty()) return default_devices(all);
    std::vector<DeviceInfo> chosen;
    std::set<std::string> seen;
    for (const auto& raw : ids) {
        const std::string entry = trimmed(raw);
        if (entry.empty())
            throw Error("an empty device in the device list: name each device once, separated "
                        "by single commas (cpu:0,cpu:1)");
        if (entry == "cpu:all" || entry == "cuda:all") {
            if (ids.size() > 1)
                throw Error(entry + " stands for every device of its kind: list it alone");
            if (entry == "cpu:all") return of_kind(all, DeviceKind::cpu);
            if (gpus.empty()) throw Error(unknown_device_message("cuda:all", all));
            return gpus;
        }
        for (DeviceInfo& device : resolve_entry(entry, all)) {
            if (!seen.insert(device.id).second)
                throw Error("device " + device.id + " is listed twice");
            chosen.push_back(std::move(device));
        }
    }
    if (const std::string mixed = device_kinds_problem(chosen); !mixed.empty()) throw Error(mixed);
    check_gpu_sharing(chosen);
    return chosen;
}

}  // namespace dp
