#pragma once

#include <chrono>
#include <cstddef>
#include <vector>

namespace dp {

// Times points in a backend's queue of work (issue 40): mark(slot) records
// when the queue reaches this point, seconds(from, to) is the time between
// two marks. On a backend whose ops have finished when they return (the CPU
// backends) a mark reads the host's steady clock; on CUDA it records an
// event on the backend's stream. A mark never waits for the device;
// seconds() waits for its `to` mark (at once when that is done already), so
// a step that marks as it goes has its times resolved after its end, with no
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
// adds each lap's seconds to its phase (on CUDA, waiting for the marks).
// A lap has two halves that a step captured as a CUDA Graph splits: plan()
// notes a lap's phase on the host, before the step's work; mark() is the
// work's, an event in the queue that the graph's replays record again while
// the host runs none of the work (Replica::train_step). Room for a step's
// laps is taken at construction, so a step allocates nothing.
class PhaseLaps {
public:
    PhaseLaps(OpClock& clock, std::size_t max_laps) : clock_(clock), phases_(max_laps + 1) {}
    // Starts a step: its first lap counts from here.
    void start() {
        clock_.mark(0);
        planned_ = 1;
        resolved_ = 1;
    }
    // The next lap's time belongs to `phase`. A lap beyond the room taken is
    // not timed (callers size it for their step).
    void plan(double& phase) {
        if (planned_ == phases_.size() || planned_ == clock_.capacity()) return;
        phases_[planned_++] = &phase;
    }
    // Lap `lap` (1 for the step's first) ends here; a lap not planned is not marked.
    void mark(std::size_t lap) {
        if (lap < planned_) clock_.mark(lap);
    }
    // Both halves at once, for a step that is never captured.
    void lap(double& phase) {
        const std::size_t next = planned_;
        plan(phase);
        mark(next);
    }
    // Adds the laps not yet resolved, through lap `last` (all planned ones
    // by default), to their phases.
    void resolve(std::size_t last = std::size_t(-1)) {
        for (; resolved_ < planned_ && resolved_ <= last; ++resolved_)
            *phases_[resolved_] += clock_.seconds(resolved_ - 1, resolved_);
    }

private:
    OpClock& clock_;
    std::vector<double*> phases_;  // slot i's phase; slot 0 is the start
    std::size_t planned_ = 0, resolved_ = 0;
};

}  // namespace dp
