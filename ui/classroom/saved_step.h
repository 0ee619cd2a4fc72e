#pragma once

#include <optional>

#include "record/run_metrics.h"
#include "record/run_record.h"

// A finished or past run's mean training step, from the timings its record
// keeps (RunRecord::step_totals over RunRecord::steps): each device's phases
// averaged over the steps, its shard its share of the global batch. Epoch is
// the run's last; batch 0 marks the step as a mean, not one step seen live.
// Empty when the record kept no step timings.
std::optional<dp::StepReport> savedMeanStep(const dp::RunRecord& record);
