#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backend/forwarding_backend.h"
#include "backend/op_clock.h"

namespace dp {

// Names the layer whose backend calls follow, for the per-op timer:
// Sequential opens one around each layer's forward and backward. `label`
// must outlive the scope. Per thread (each replica runs on its own device
// thread); scopes nest, the innermost naming the calls.
class LayerScope {
public:
    explicit LayerScope(const std::string& label);
    ~LayerScope();
    LayerScope(const LayerScope&) = delete;
    LayerScope& operator=(const LayerScope&) = delete;
    // The innermost open scope's label on this thread; null outside every scope.
    static const std::string* current();

private:
    const std::string* previous_;
};

// One row of the per-op table: per step, the mean time of its calls, their
// share of the time of every call, and how many calls a step made.
struct OpProfileRow {
    std::string name;
    double seconds = 0;
    double share = 0;  // in [0, 1]; the rows of one table sum to 1
    double calls = 0;
};

// What the per-op timer measured over `steps` steps, per step.
struct OpProfile {
    std::int64_t steps = 0;
    double op_seconds = 0;    // every call's time, per step
    double step_seconds = 0;  // from the first call's start to the last call's end, per step
    std::vector<OpProfileRow> families;  // by time, longest first; families without calls left out
    std::vector<OpProfileRow> layers;    // in the order the step first met them
    std::int64_t untimed_calls = 0;      // beyond the clock's room: not in the rows

    // The table dp-train --profile-ops logs, titled with `title` (lines, no final newline).
    std::string table(const std::string& title) const;
};

// The per-op timer (issue 40, dp-train --profile-ops): a forwarding backend
// that, between start_step() and end_step(), marks the backend's OpClock
// before and after every call (the host's steady clock on the CPU, CUDA
// events on the backend's stream: no synchronisation is added inside the
// step) and notes each call's family and layer (LayerScope). end_step()
// resolves the step's marks, once, after its last call, into totals per
// family and per layer. Outside profiled steps it only forwards.
class OpProfiler final : public ForwardingBackend {
public:
    // Up to `max_calls` calls a step are timed. `clock`: null for the inner
    // backend's own (make_op_clock); a test passes a fake one.
    OpProfiler(std::unique_ptr<Backend> inner, std::size_t max_calls = 4096,
               std::unique_ptr<OpClock> clock = nullptr);

    void start_step();
    void end_step();
    OpProfile profile() const;

    // A timed step is never captured: the notes of each call (its family,
    // its layer, its clock slots) are host work that a replay would skip.
    StepGraphAction run_step(const StepGraphRequest& request, StepWork step) override;

protected:
    void before_op(OpFamily family) override;
    void after_op(OpFamily family) override;

private:
    struct Call {
        OpFamily family;
        std::size_t layer;  // index in layers_
    };
    struct LayerTotal {
        std::string label;
        double seconds = 0;
        std::int64_t calls = 0;
    };
    // The index in layers_ of the calls made now (taking room for a new label: before a
    // timed step's first call that names it; allocation is a profiled step's own cost).
    std::size_t current_layer();

    std::unique_ptr<OpClock> clock_;
    std::vector<Call> calls_;  // this step's, reserved
    bool recording_ = false;
    bool call_open_ = false;  // before_op marked a start that after_op has not ended
    std::int64_t steps_ = 0;
    std::int64_t untimed_ = 0;
    double step_seconds_ = 0;
    std::array<double, kOpFamilies> family_seconds_{};
    std::array<std::int64_t, kOpFamilies> family_calls_{};
    std::vector<LayerTotal> layers_;
};

}  // namespace dp
