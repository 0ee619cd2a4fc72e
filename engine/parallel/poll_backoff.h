#pragma once

#include <algorithm>
#include <chrono>
#include <thread>

namespace dp {

// The pauses of a thread that polls for what other processes do (an MPI
// request), so that a short wait adds no latency and a long one does not burn
// a core: it spins for the first millisecond (ranks that arrive together
// finish a collective within it), then sleeps between polls, from 50 us
// doubling up to 200 us. The cap is short because a collective of several
// rounds moves on only when a rank polls: each round may wait one pause.
class PollBackoff {
public:
    // Between two polls: returns at once while spinning, else sleeps.
    void pause() {
        if (!sleeping_) {
            if (std::chrono::steady_clock::now() - start_ < spin_time) return;
            sleeping_ = true;
        }
        std::this_thread::sleep_for(sleep_);
        sleep_ = std::min(sleep_ * 2, longest_sleep);
    }

    // Whether the wait has outlasted spinning: a long wait, in which checks
    // that cost more than a poll (the clock, other messages) are cheap.
    bool long_wait() const { return sleeping_; }

private:
    static constexpr std::chrono::microseconds spin_time{1000}, longest_sleep{200};

    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
    std::chrono::microseconds sleep_{50};
    bool sleeping_ = false;
};

}  // namespace dp
