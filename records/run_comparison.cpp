#include "run_comparison.h"

#include "scaling/scaling_comparison.h"

namespace {

bool isFairBaseline(const dp::RunRecord& candidate, const dp::RunRecord& run)
{
    return !candidate.epochs.empty()
            && dp::baseline_mismatch(candidate.config, run.config).empty();
}

std::optional<std::size_t> findBaseline(const std::vector<dp::RunRecord>& runs,
                                        const dp::RunRecord& run, std::string& why)
{
    // A comparison's pair stays together, whatever else is in the list.
    if (!run.comparison_group.empty()) {
        for (std::size_t i = 0; i < runs.size(); ++i) {
            if (runs[i].comparison_group == run.comparison_group && isFairBaseline(runs[i], run))
                return i;
        }
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

} // namespace

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
                                       double targetAccuracy)
{
    std::vector<RunComparison> comparisons;
    for (const dp::RunRecord& run : runs) {
        const dp::RunSummary summary = run.summary();
        RunComparison comparison;
        // The steady epochs' median, as the speedup beside it (record/run_metrics.h).
        comparison.secondsPerEpoch = summary.epoch_time().median;
        comparison.finalTestAcc = summary.final_test_acc();
        comparison.secondsToTarget = secondsToAccuracy(run, targetAccuracy);
        comparison.baseline = findBaseline(runs, run, comparison.noBaselineReason);
        if (comparison.baseline && !run.epochs.empty() && !run.config.devices.empty()) {
            const dp::RunRecord& baseline = runs[*comparison.baseline];
            const dp::RunSummary baselineSummary = baseline.summary();
            const auto rows = dp::compare_runs({baseline.config, run.config},
                                               {baselineSummary, summary});
            comparison.speedup = rows[1].speedup;
            if (&baseline != &run)
                comparison.scaling = baseline.config.batch_size == run.config.batch_size ? "strong"
                                                                                         : "weak";
            comparison.efficiency = rows[1].efficiency;
            if (run.config.devices.size() > 1 && baseline.config.devices.size() == 1
                && dp::has_step_timings(summary) && dp::has_step_timings(baselineSummary)) {
                comparison.gap = dp::speedup_gap(baselineSummary, summary);
                dp::fit_gap_to_settings(*comparison.gap, baseline.config, run.config);
            }
        }
        comparisons.push_back(comparison);
    }
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
