#include "devices/device.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>

#include <sched.h>

#include "backend/onednn/onednn_backend.h"
#include "core/error.h"

namespace dp {
namespace {

std::string cpu_model_name() {
    std::ifstream cpuinfo("/proc/cpuinfo");
    for (std::string line; std::getline(cpuinfo, line);)
        if (line.starts_with("model name")) {
            const auto colon = line.find(':');
            if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
        }
    return "CPU";
}

// The cores this process may run on (taskset and cgroup cpusets respected).
std::vector<int> usable_cores() {
    cpu_set_t set;
    std::vector<int> cores;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        for (int core = 0; core < CPU_SETSIZE; ++core)
            if (CPU_ISSET(core, &set)) cores.push_back(core);
    if (cores.empty()) cores.push_back(0);
    return cores;
}

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
                    text + "')");
    return int(count);
}

}  // namespace

std::vector<DeviceInfo> available_devices() {
    const std::string model = cpu_model_name();
    const std::vector<int> cores = usable_cores();
    const int count = cpu_device_count(int(cores.size()));
    std::vector<DeviceInfo> devices;
    for (int index = 0; index < count; ++index) {
        const int core = cores[index % cores.size()];
        devices.push_back({"cpu:" + std::to_string(index),
                           "core " + std::to_string(core) + ", " + model, {core}});
    }
    return devices;
}

std::vector<DeviceInfo> select_devices(const std::vector<std::string>& ids) {
    const auto all = available_devices();
    if (ids.empty() || (ids.size() == 1 && ids[0] == "cpu:all")) return all;
    std::vector<DeviceInfo> chosen;
    std::set<std::string> seen;
    for (const auto& id : ids) {
        if (!seen.insert(id).second) throw Error("device " + id + " is listed twice");
        auto it = std::find_if(all.begin(), all.end(), [&](const auto& d) { return d.id == id; });
        if (it == all.end()) {
            std::string known;
            for (const auto& d : all) known += (known.empty() ? "" : ", ") + d.id;
            throw Error("no device " + id + " on this machine (available: " + known +
                        "; see --list-devices)");
        }
        chosen.push_back(*it);
    }
    return chosen;
}

std::unique_ptr<Backend> make_backend(const DeviceInfo&) { return std::make_unique<OneDnnBackend>(); }

}  // namespace dp
