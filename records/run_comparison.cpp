#include "run_comparison.h"

#include <map>
#include <utility>

#include "scaling/scaling_comparison.h"

namespace {

bool isFairBaseline(const dp::RunRecord& candidate, const dp::RunRecord& run)
{
    return !candidate.epochs.empty()
            && dp::baseline_mismatch(candidate.config, run.config).empty();
}

std::optional<std::size_t> findBaseline(const std::vector<dp::RunRecord>& runs, std::size_t index,
                                        const std::string& chosenBaseline, std::string& why)
{
    const dp::RunRecord& run = runs[index];
    // The user's pick (the runs table's "Use as baseline"), where it is fair.
    for (std::size_t i = 0; i < runs.size(); ++i)
        if (!chosenBaseline.empty() && runs[i].id == chosenBaseline && isFairBaseline(runs[i], run))
            return i;
    // A comparison's runs stay together, whatever else is in the list; in a
    // repeated one (1, N, 1, N, ...) each N-device run pairs with the
    // 1-device run just before it, which ran under the same machine load.
    if (!run.comparison_group.empty()) {
        std::optional<std::size_t> inGroup;
        for (std::size_t i = 0; i < runs.size(); ++i) {
            if (runs[i].comparison_group != run.comparison_group || !isFairBaseline(runs[i], run))
                continue;
            if (!inGroup || i <= index)
                inGroup = i;
        }
        if (inGroup)
            return inGroup;
    }
    // An identical-settings baseline measures what the devices add; a scaled
    // one (weak scaling) also changes the work per step, so it comes second.
    for (const bool identical : {true, false})
        for (std::size_t i = 0; i < runs.size(); ++i) {
            const bool same = runs[i].config.batch_size == run.config.batch_size
                              && runs[i].config.lr == run.config.lr;
            if (same == identical && isFairBaseline(runs[i], run))
                return i;
        }
    // The nearest candidate's first difference, else what a baseline needs.
    for (const dp::RunRecord& candidate : runs) {
        if (candidate.config.devices.size() == 1 && !candidate.epochs.empty()
            && candidate.config.model == run.config.model) {
            why = "Not comparable with " + candidate.label() + ": "
                    + dp::baseline_mismatch(candidate.config, run.config);
            return std::nullopt;
        }
    }
    why = "No 1-device run of this model with the same data, epochs and seed among the checked "
          "runs. A baseline needs "
            + dp::baseline_batch_rule(run.config) + "; Compare 1 vs N runs one.";
    return std::nullopt;
}

// A comparison run R times holds R runs of each device count: each N-device
// run gets the median and range of its count's speedups.
void summarizeRepeats(const std::vector<dp::RunRecord>& runs, std::vector<RunComparison>& comparisons)
{
    std::map<std::pair<std::string, int>, std::vector<std::size_t>> repeats;  // (group, devices)
    for (std::size_t i = 0; i < runs.size(); ++i)
        if (!runs[i].comparison_group.empty() && comparisons[i].speedup && runs[i].device_count() > 1)
            repeats[{runs[i].comparison_group, runs[i].device_count()}].push_back(i);
    for (const auto& [key, members] : repeats) {
        if (members.size() < 2)
            continue;
        std::vector<double> speedups;
        for (const std::size_t i : members)
            speedups.push_back(*comparisons[i].speedup);
        const dp::RepeatedSpeedup summary = dp::summarize_speedups(key.second, std::move(speedups));
        for (const std::size_t i : members) {
            RunComparison& comparison = comparisons[i];
            comparison.repeated = summary;
            comparison.speedupRange = RepeatRange{summary.median, summary.min, summary.max};
            // Efficiency is speedup over the device ratio, so the repeats'
            // range scales the same way.
            if (comparison.efficiency && *comparison.speedup > 0) {
                const double perSpeedup = *comparison.efficiency / *comparison.speedup;
                comparison.repeatedEfficiency = RepeatRange{summary.median * perSpeedup,
                                                            summary.min * perSpeedup,
                                                            summary.max * perSpeedup};
            }
        }
    }
}

} // namespace

const char* measuredScalingName(MeasuredScaling scaling)
{
    switch (scaling) {
    case MeasuredScaling::strong: return "strong";
    case MeasuredScaling::weak: return "weak";
    case MeasuredScaling::none: break;
    }
    return "";
}

int comparisonRepeat(const dp::RunRecord& run, const std::vector<const dp::RunRecord*>& runs)
{
    if (run.comparison_group.empty())
        return 0;
    int repeat = 0;
    int repeats = 0;
    for (const dp::RunRecord* other : runs) {
        if (other->comparison_group != run.comparison_group
            || other->device_count() != run.device_count())
            continue;
        ++repeats;
        if (other == &run || other->id == run.id)
            repeat = repeats;
    }
    return repeats > 1 ? repeat : 0;
}

std::vector<double> cumulativeSeconds(const dp::RunRecord& run)
{
    std::vector<double> elapsed;
    double seconds = 0;
    for (const dp::EpochMetrics& epoch : run.epochs)
        elapsed.push_back(seconds += epoch.seconds);
    return elapsed;
}

std::optional<double> secondsToAccuracy(const dp::RunRecord& run, double targetAccuracy)
{
    const std::vector<double> elapsed = cumulativeSeconds(run);
    for (std::size_t i = 0; i < run.epochs.size(); ++i) {
        if (run.epochs[i].test_acc >= targetAccuracy)
            return elapsed[i];
    }
    return std::nullopt;
}

std::vector<RunComparison> compareRuns(const std::vector<dp::RunRecord>& runs,
                                       double targetAccuracy, const std::string& chosenBaseline)
{
    std::vector<RunComparison> comparisons;
    for (std::size_t index = 0; index < runs.size(); ++index) {
        const dp::RunRecord& run = runs[index];
        const dp::RunSummary summary = run.summary();
        RunComparison comparison;
        // The steady epochs' median, as the speedup beside it (record/run_metrics.h).
        comparison.secondsPerEpoch = summary.epoch_time().median;
        comparison.finalTestAcc = summary.final_test_acc();
        comparison.secondsToTarget = secondsToAccuracy(run, targetAccuracy);
        comparison.baseline = findBaseline(runs, index, chosenBaseline, comparison.noBaselineReason);
        if (comparison.baseline && !run.epochs.empty() && !run.config.devices.empty()) {
            const dp::RunRecord& baseline = runs[*comparison.baseline];
            const dp::RunSummary baselineSummary = baseline.summary();
            const auto rows = dp::compare_runs({baseline.config, run.config},
                                               {baselineSummary, summary});
            comparison.speedup = rows[1].speedup;
            comparison.speedupRange = RepeatRange{rows[1].speedup, rows[1].speedup_min, rows[1].speedup_max};
            if (&baseline != &run)
                comparison.scaling = baseline.config.batch_size == run.config.batch_size
                                             ? MeasuredScaling::strong
                                             : MeasuredScaling::weak;
            comparison.efficiency = rows[1].efficiency;
            const int cores = run.cpu_cores_used();
            if (cores > 0 && cores < run.device_count() && baseline.cpu_cores_used() > 0)
                comparison.ceiling = double(cores) / baseline.cpu_cores_used();
            if (run.config.devices.size() > 1 && baseline.config.devices.size() == 1
                && dp::has_step_timings(summary) && dp::has_step_timings(baselineSummary)) {
                comparison.gap = dp::explain_speedup_gap(baseline.config, baselineSummary,
                                                         run.config, summary, cores);
            }
        }
        comparisons.push_back(comparison);
    }
    summarizeRepeats(runs, comparisons);
    // Once every run knows its own time to the target.
    for (RunComparison& comparison : comparisons) {
        if (!comparison.baseline || !comparison.secondsToTarget)
            continue;
        const std::optional<double> baselineSeconds = comparisons[*comparison.baseline].secondsToTarget;
        if (baselineSeconds && *comparison.secondsToTarget > 0)
            comparison.speedupToTarget = *baselineSeconds / *comparison.secondsToTarget;
    }
    return comparisons;
}
