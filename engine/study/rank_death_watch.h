#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace dp {

// Where one rank of an MPI job runs: its machine (gethostname) and pid.
struct RankProcess {
    std::string host;
    std::int64_t pid = 0;
};

// Sees the other ranks of a job on this machine die, the moment they do: a
// thread waits on a pidfd of each (Linux 5.3 and later; without pidfds it
// watches nothing). Ranks on other machines are not watched. mpirun learns
// of a dead rank as this does, and ends the others (SIGCONT now, SIGTERM a
// second later, SIGKILL a second after that): a second or two in which a
// survivor can record the run's end truly.
class RankDeathWatch {
public:
    // Called on the watch's thread for each death, in the order seen, with
    // which ranks are dead so far (indexed by rank).
    using OnDeath = std::function<void(int dead_rank, const std::vector<bool>& dead)>;

    // Watches every rank in `ranks` but `self` that runs on this machine.
    RankDeathWatch(const std::vector<RankProcess>& ranks, int self, OnDeath on_death);
    // stop()
    ~RankDeathWatch();
    RankDeathWatch(const RankDeathWatch&) = delete;
    RankDeathWatch& operator=(const RankDeathWatch&) = delete;

    // No call of on_death starts after this returns (one in progress ends first).
    void stop();

private:
    void watch();

    std::vector<int> pidfds_;  // -1: not watched (elsewhere, this rank, or no pidfd)
    std::vector<bool> dead_;
    int stop_event_ = -1;      // an eventfd: written by stop()
    OnDeath on_death_;
    std::thread thread_;
};

}  // namespace dp
