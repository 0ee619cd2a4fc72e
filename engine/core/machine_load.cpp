#include "core/machine_load.h"

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>

namespace dp {
namespace {

double ticks_per_second() {
    const long ticks = ::sysconf(_SC_CLK_TCK);
    return ticks > 0 ? double(ticks) : 100.0;
}

// The "cpu" line of /proc/stat: user nice system idle iowait irq softirq
// steal ...; busy is all but idle and iowait.
bool read_machine_busy(double& seconds) {
    std::ifstream stat("/proc/stat");
    std::string label;
    unsigned long long user, nice, system, idle, iowait, irq, softirq, steal = 0;
    if (!(stat >> label >> user >> nice >> system >> idle >> iowait >> irq >> softirq) ||
        label != "cpu")
        return false;
    stat >> steal;
    seconds = double(user + nice + system + irq + softirq + steal) / ticks_per_second();
    return true;
}

// Fields 14 and 15 of /proc/<process>/stat (utime, stime), after the command
// name in parentheses, which may itself hold spaces.
bool read_process_cpu(const std::string& process, double& seconds) {
    std::ifstream stat("/proc/" + process + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return false;
    const auto close = line.rfind(')');
    if (close == std::string::npos) return false;
    std::istringstream fields(line.substr(close + 2));
    std::string field;
    unsigned long long utime = 0, stime = 0;
    // Field 3 (state) is the first after the name: utime is the 12th from there.
    for (int i = 3; i < 14 && fields >> field; ++i) {}
    if (!(fields >> utime >> stime)) return false;
    seconds = double(utime + stime) / ticks_per_second();
    return true;
}

}  // namespace

CpuClock read_cpu_clock(std::span<const std::int64_t> also_own) {
    CpuClock clock;
    clock.wall = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    clock.known = read_machine_busy(clock.machine_busy) && read_process_cpu("self", clock.own);
    for (const std::int64_t pid : also_own) {
        double seconds = 0;
        if (read_process_cpu(std::to_string(pid), seconds)) clock.own += seconds;
    }
    std::ifstream("/proc/loadavg") >> clock.load_average;
    return clock;
}

MachineLoad machine_load_between(const CpuClock& from, const CpuClock& to) {
    MachineLoad load;
    load.cores = int(::sysconf(_SC_NPROCESSORS_ONLN));
    load.load_average = to.load_average;
    const double wall = to.wall - from.wall;
    load.known = from.known && to.known && wall > 0 && load.cores > 0;
    if (!load.known) return load;
    const double others = (to.machine_busy - from.machine_busy) - (to.own - from.own);
    load.other_cores = others > 0 ? others / wall : 0;
    return load;
}

}  // namespace dp
