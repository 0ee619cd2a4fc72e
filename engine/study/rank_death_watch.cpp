#include "study/rank_death_watch.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>

#include "record/run_process.h"

namespace dp {
namespace {

// A file descriptor that polls readable once process `pid` has exited; -1
// if there is none (ESRCH: already gone, reported as dead at once).
int open_pidfd(std::int64_t pid) {
#ifdef SYS_pidfd_open
    return int(::syscall(SYS_pidfd_open, pid_t(pid), 0));
#else
    errno = ENOSYS;
    return -1;
#endif
}

}  // namespace

RankDeathWatch::RankDeathWatch(const std::vector<RankProcess>& ranks, int self, OnDeath on_death)
    : pidfds_(ranks.size(), -1), dead_(ranks.size(), false), on_death_(std::move(on_death)) {
    const std::string here = this_host();
    std::vector<int> gone_already;
    for (std::size_t rank = 0; rank < ranks.size(); ++rank) {
        if (int(rank) == self || ranks[rank].host != here || ranks[rank].pid <= 0) continue;
        pidfds_[rank] = open_pidfd(ranks[rank].pid);
        if (pidfds_[rank] < 0 && errno == ESRCH) gone_already.push_back(int(rank));
    }
    const bool watching = std::any_of(pidfds_.begin(), pidfds_.end(), [](int fd) { return fd >= 0; });
    if (!watching && gone_already.empty()) return;
    stop_event_ = ::eventfd(0, EFD_CLOEXEC);
    if (stop_event_ < 0) return;  // no way to stop a thread: watch nothing
    // A rank that died between telling its pid and now is reported as the
    // others are, from the thread.
    thread_ = std::thread([this, gone_already] {
        for (const int rank : gone_already) {
            dead_[std::size_t(rank)] = true;
            on_death_(rank, dead_);
        }
        watch();
    });
}

RankDeathWatch::~RankDeathWatch() {
    stop();
    for (const int fd : pidfds_)
        if (fd >= 0) ::close(fd);
    if (stop_event_ >= 0) ::close(stop_event_);
}

void RankDeathWatch::stop() {
    if (!thread_.joinable()) return;
    const std::uint64_t one = 1;
    [[maybe_unused]] const auto written = ::write(stop_event_, &one, sizeof one);
    thread_.join();
}

void RankDeathWatch::watch() {
    while (true) {
        std::vector<pollfd> polled{{stop_event_, POLLIN, 0}};
        std::vector<int> ranks{-1};
        for (std::size_t rank = 0; rank < pidfds_.size(); ++rank) {
            if (pidfds_[rank] < 0 || dead_[rank]) continue;
            polled.push_back({pidfds_[rank], POLLIN, 0});
            ranks.push_back(int(rank));
        }
        if (::poll(polled.data(), polled.size(), -1) < 0) {
            if (errno == EINTR) continue;
            return;
        }
        if (polled[0].revents != 0) return;  // stop()
        for (std::size_t i = 1; i < polled.size(); ++i) {
            if (polled[i].revents == 0) continue;
            dead_[std::size_t(ranks[i])] = true;
            on_death_(ranks[i], dead_);
        }
    }
}

}  // namespace dp
