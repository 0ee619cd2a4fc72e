#include "record/run_process.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <iterator>
#include <sstream>
#include <string>

namespace dp {
namespace {

// Seconds since the epoch of an ISO 8601 UTC stamp ("2026-11-22T01:30:00Z"),
// -1 if it is not one.
long long seconds_of_stamp(const std::string& stamp) {
    std::tm utc{};
    std::istringstream in(stamp);
    in >> std::get_time(&utc, "%Y-%m-%dT%H:%M:%SZ");
    if (in.fail()) return -1;
    return static_cast<long long>(timegm(&utc));
}

// What /proc says of process `pid`: whether it has exited and waits to be
// reaped (a zombie), and when it started, in seconds since the epoch (the
// boot time from /proc/stat plus field 22 of /proc/<pid>/stat, the start in
// clock ticks after boot; -1 if unreadable).
struct ProcessStat {
    bool zombie = false;
    long long started = -1;
};

ProcessStat process_stat(long long pid) {
    ProcessStat result;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    const std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const auto after_name = text.rfind(')');  // the name may hold spaces and parentheses
    if (after_name == std::string::npos || after_name + 2 >= text.size()) return result;
    std::istringstream fields(text.substr(after_name + 2));
    std::string state, skipped;
    fields >> state;  // field 3
    result.zombie = state == "Z";
    for (int index = 4; index < 22 && fields >> skipped; ++index) {
    }
    unsigned long long start_ticks = 0;
    if (!(fields >> start_ticks)) return result;
    std::ifstream machine("/proc/stat");
    std::string line;
    long long boot = -1;
    while (std::getline(machine, line))
        if (line.rfind("btime ", 0) == 0) boot = std::stoll(line.substr(6));
    const long ticks_per_second = sysconf(_SC_CLK_TCK);
    if (boot < 0 || ticks_per_second <= 0) return result;
    result.started = boot + static_cast<long long>(start_ticks / static_cast<unsigned long long>(ticks_per_second));
    return result;
}

}  // namespace

std::string this_host() {
    char name[HOST_NAME_MAX + 1] = {};
    if (gethostname(name, sizeof name - 1) != 0) return {};
    return name;
}

RunProcess run_process(const RunRecord& record) {
    if (record.pid <= 0 || record.host.empty()) return RunProcess::unknown;
    if (record.host != this_host()) return RunProcess::elsewhere;
    // EPERM: it exists, owned by another user.
    if (::kill(pid_t(record.pid), 0) != 0 && errno != EPERM) return RunProcess::gone;
    const ProcessStat process = process_stat(record.pid);
    if (process.zombie) return RunProcess::gone;  // exited; its parent has yet to reap it
    const long long run_started = seconds_of_stamp(record.started_at);
    // The boot time is whole seconds, the stamp truncated to one: a second's
    // slack each way, far below the gap before a pid comes round again.
    if (process.started >= 0 && run_started >= 0 && process.started > run_started + 2)
        return RunProcess::gone;
    return RunProcess::alive;
}

}  // namespace dp
