#pragma once

#include <cstdint>
#include <span>

namespace dp {

// How busy the rest of the machine was while something was measured: a
// speedup taken while another process trained beside it says nothing about
// the devices (0.73x and 1.95x for one LeNet comparison within an hour on 2
// cores). Read from /proc: the CPU time every process took (/proc/stat) less
// this process's own (/proc/self/stat).
struct CpuClock {
    double machine_busy = 0;  // seconds of CPU time, every core, every process
    double own = 0;           // seconds of CPU time of this process's threads (and also_own's)
    double wall = 0;          // seconds, monotonic
    double load_average = 0;  // the 1-minute load average at the time
    bool known = false;       // false where /proc cannot be read
};
// `also_own`: processes whose CPU time counts as this one's (the other ranks
// of its MPI job on this machine, which train the same run: not "other
// processes"). One that cannot be read (gone) counts nothing.
CpuClock read_cpu_clock(std::span<const std::int64_t> also_own = {});

struct MachineLoad {
    // Cores the other processes kept busy on average between two readings.
    double other_cores = 0;
    double load_average = 0;  // the 1-minute load average at the end
    int cores = 0;            // online cores
    bool known = false;
    // Other work took more than a fifth of the cores: a timing taken now is
    // flagged, not trusted.
    bool busy() const { return known && other_cores > 0.2 * cores; }
};
MachineLoad machine_load_between(const CpuClock& from, const CpuClock& to);

}  // namespace dp
