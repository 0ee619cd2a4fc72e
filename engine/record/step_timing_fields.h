#pragma once

#include <span>
#include <string>
#include <variant>
#include <vector>

#include "record/run_metrics.h"

namespace dp {

// The fields of DeviceStepTiming under the names every format keeps them by
// (the run record's "step_totals", the history's column, dp-train's
// comparison report): one list that the writers and readers iterate, so no
// format can keep a phase and drop another. Adding a phase means a member of
// DeviceStepTiming and a row here.
struct StepTimingField {
    using Member = std::variant<int DeviceStepTiming::*, double DeviceStepTiming::*>;
    const char* name;  // "allreduce": the JSON key
    Member member;
    // Added after records were kept without it: a reader takes it as 0 when missing.
    bool optional = false;
};

// shard, data, forward, backward, allreduce, update, gather, broadcast, straggler_wait.
std::span<const StepTimingField> step_timing_fields();

// The field's value as a double (a shard's sample count is whole).
double step_timing_value(const StepTimingField& field, const DeviceStepTiming& timing);
// Sets the field; a shard count is rounded to the nearest whole number.
void set_step_timing_value(const StepTimingField& field, DeviceStepTiming& timing, double value);

// One JSON object per device, in device order:
// [{"shard": 7680, "data": 0.012, "forward": 1.5, ...}, ...].
std::string step_totals_json(const std::vector<DeviceStepTiming>& totals);

}  // namespace dp
