#include "saved_step.h"

#include <cmath>
#include <string_view>

#include "record/step_timing_fields.h"

std::optional<dp::StepReport> savedMeanStep(const dp::RunRecord& record)
{
    if (record.steps <= 0 || record.step_totals.empty())
        return std::nullopt;
    const double steps = double(record.steps);
    long long samples = 0;
    for (const dp::DeviceStepTiming& device : record.step_totals)
        samples += device.shard;
    dp::StepReport step;
    step.epoch = record.epochs.empty() ? 0 : record.epochs.back().epoch;
    step.batch = 0;
    int shardsSoFar = 0;
    for (const dp::DeviceStepTiming& total : record.step_totals) {
        dp::DeviceStepTiming mean;
        // Shares of the configured batch, so the bar reads as a full step.
        mean.shard = samples > 0 ? int(std::lround(double(record.config.batch_size) * total.shard / samples))
                                 : 0;
        // Every phase the record keeps (DataParallel's gather and broadcast too).
        for (const dp::StepTimingField& field : dp::step_timing_fields())
            if (std::string_view(field.name) != "shard")
                dp::set_step_timing_value(field, mean, dp::step_timing_value(field, total) / steps);
        shardsSoFar += mean.shard;
        step.devices.push_back(mean);
    }
    // Rounding never leaves the shards a sample off the batch.
    if (samples > 0)
        step.devices.back().shard += record.config.batch_size - shardsSoFar;
    return step;
}
