#pragma once

#include <chrono>
#include <cstddef>
#include <vector>

namespace dp {

// Times points in a backend's queue of work (issue 40): mark(slot) records
// when the queue reaches this point, seconds(from, to) is the time between
// two marks. On a backend whose ops have finished when they return (the CPU
// backends) a mark reads the host's steady clock; on CUDA it records an
// event on the backend's stream. A mark never waits for the device; the
// first seconds() after some marks waits once for the latest, so a step
// that marks as it goes has its times resolved after its end, with no
// synchronisation inside it. Marks live in `capacity()` slots, reused from
// step to step; a slot marked again replaces its time.
class OpClock {
public:
    virtual ~OpClock() = default;
    virtual std::size_t capacity() const = 0;
    virtual void mark(std::size_t slot) = 0;
    virtual double seconds(std::size_t from, std::size_t to) = 0;
};

// The host's steady clock, for the synchronous backends.
class SteadyOpClock final : public OpClock {
public:
    explicit SteadyOpClock(std::size_t capacity) : times_(capacity) {}
    std::size_t capacity() const override { return times_.size(); }
    void mark(std::size_t slot) override { times_[slot] = std::chrono::steady_clock::now(); }
    double seconds(std::size_t from, std::size_t to) override {
        return std::chrono::duration<double>(times_[to] - times_[from]).count();
    }

private:
    std::vector<std::chrono::steady_clock::time_point> times_;
};

// A step's phases timed by an OpClock: lap(phase) marks the next slot and
// notes that the time since the previous mark belongs to `phase`; resolve()
// adds each lap's seconds to its phase (on CUDA, waiting for the last mark
// once). Room for a step's laps is taken at construction, so a step allocates
// nothing.
class PhaseLaps {
public:
    PhaseLaps(OpClock& clock, std::size_t max_laps) : clock_(clock), phases_(max_laps + 1) {}
    // Starts a step: its first lap counts from here.
    void start() {
        clock_.mark(0);
        marked_ = 1;
        resolved_ = 1;
    }
    // A lap beyond the room taken is not timed (callers size it for their step).
    void lap(double& phase) {
        if (marked_ == phases_.size() || marked_ == clock_.capacity()) return;
        clock_.mark(marked_);
        phases_[marked_++] = &phase;
    }
    // Adds the laps not yet resolved to their phases.
    void resolve() {
        for (; resolved_ < marked_; ++resolved_)
            *phases_[resolved_] += clock_.seconds(resolved_ - 1, resolved_);
    }

private:
    OpClock& clock_;
    std::vector<double*> phases_;  // slot i's phase; slot 0 is the start
    std::size_t marked_ = 0, resolved_ = 0;
};

}  // namespace dp
