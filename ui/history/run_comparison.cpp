#include "run_comparison.h"

#include "train/scaling_comparison.h"

namespace {

dp::RunSummary summaryOf(const dp::RunRecord& run)
{
    return {run.epochs, run.config.devices};
}

bool isBaselineFor(const dp::RunRecord& candidate, const dp::RunRecord& run)
{
    return candidate.config.devices.size() == 1 && !candidate.epochs.empty()
            && sameWorkload(candidate.config, run.config);
}

} // namespace

bool sameWorkload(const dp::TrainConfig& a, const dp::TrainConfig& b)
{
    // The synthetic set's shape only matters when it is the data set.
    const bool sameRandomShape = a.dataset != "random"
            || (a.input_size == b.input_size && a.samples == b.samples);
    return a.model == b.model && a.dataset == b.dataset && a.data_dir == b.data_dir
            && a.limit_train == b.limit_train && sameRandomShape;
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
                                       double targetAccuracy)
{
    std::vector<RunComparison> comparisons;
    for (const dp::RunRecord& run : runs) {
        const dp::RunSummary summary = summaryOf(run);
        RunComparison comparison;
        comparison.secondsPerEpoch = summary.mean_seconds_per_epoch();
        comparison.finalTestAcc = summary.final_test_acc();
        comparison.secondsToTarget = secondsToAccuracy(run, targetAccuracy);
        for (std::size_t i = 0; i < runs.size() && !comparison.baseline; ++i) {
            if (isBaselineFor(runs[i], run))
                comparison.baseline = i;
        }
        if (comparison.baseline && !run.epochs.empty() && !run.config.devices.empty()) {
            const dp::RunRecord& baseline = runs[*comparison.baseline];
            const auto rows = dp::compare_runs({baseline.config, run.config},
                                               {summaryOf(baseline), summary});
            comparison.speedup = rows[1].speedup;
            comparison.efficiency = rows[1].efficiency;
        }
        comparisons.push_back(comparison);
    }
    return comparisons;
}
