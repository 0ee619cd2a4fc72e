#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "record/run_record.h"
#include "scaling/scaling_comparison.h"
#include "scaling/speedup_gap.h"

// How an N-device run's speedup over its baseline was measured.
enum class MeasuredScaling {
    none,    // no baseline, or the run is its own baseline
    strong,  // the same global batch
    weak,    // the batch grew with the devices, each device's share unchanged
};
// "strong", "weak"; empty for none: the runs table's and the exports' word.
const char* measuredScalingName(MeasuredScaling scaling);

// A value's median and range over a repeated comparison's repeats.
struct RepeatRange {
    double median = 0, min = 0, max = 0;
};

// How each run of a list compares with the others: what the runs table shows
// and the exports write. The throughput arithmetic is the engine's
// (dp::compare_runs, as dp-train --compare prints it); this adds which run
// is the baseline and the time to a target accuracy.
struct RunComparison {
    double secondsPerEpoch = 0;  // the median of the epochs after the first (dp::EpochTime)
    double finalTestAcc = 0;     // after the last completed epoch
    // The run the user chose as baseline where it is fair, else the
    // 1-device run of its comparison group (in a repeated comparison, the
    // one just before this run), else the first 1-device run
    // in the list that is a fair baseline (dp::baseline_mismatch): same model,
    // data, samples, epochs, seed, and batch rule; one with the same global
    // batch and lr before one scaled down from them.
    std::optional<std::size_t> baseline;
    // How the speedup over the baseline was measured; none without a
    // baseline or for the baseline itself.
    MeasuredScaling scaling = MeasuredScaling::none;
    // Without a baseline: why, in a sentence (the runs table's tooltip).
    std::string noBaselineReason;
    // Throughput over the baseline's; empty without a baseline or epochs.
    std::optional<double> speedup;
    // For a comparison repeated R times (1, N, 1, N, ...): the median and
    // range of its R speedups at this run's device count, which a speedup
    // quotes rather than one repeat's; empty for runs not repeated.
    std::optional<dp::RepeatedSpeedup> repeated;
    // The range the speedup's verdict word reads (dp::speedup_verdict): the
    // repeats' range where repeated, else the one the two runs' steady
    // epochs allow (dp::ComparisonRow::speedup_min/max); empty without a speedup.
    std::optional<RepeatRange> speedupRange;
    // speedup / (devices / baseline devices): 1 is perfect scaling.
    std::optional<double> efficiency;
    // With `repeated`: the efficiencies of its speedups (the same device
    // ratio divides each), so that views only format them.
    std::optional<RepeatRange> repeatedEfficiency;
    // The most speedup this run's cores allow over its baseline, where its
    // CPU devices took turns on fewer cores than devices (4 on 2 cores: 2);
    // empty where every device had its own core, or that is not known.
    std::optional<double> ceiling;
    // Training seconds up to the first epoch reaching the target; empty if none did.
    std::optional<double> secondsToTarget;
    // The baseline's secondsToTarget over this run's: how much sooner it
    // reaches the target, which per-epoch speed alone does not say (a larger
    // batch may need more epochs). Empty unless both reached it.
    std::optional<double> speedupToTarget;
    // Where an N-device run's time went against its 1-device baseline
    // (dp::speedup_gap); empty for 1-device runs and unless both runs kept
    // step timings. Its texts name settings as the engine does ({bucket_mb}).
    std::optional<dp::SpeedupGap> gap;
};

// Which repeat of a repeated comparison `run` is: 1 for the first run of its
// comparison group with its device count among `runs` (in the order they
// ran), 2 for the next, ...; 0 for a run outside a comparison or in one that
// ran once. What tells apart the runs of "Compare repeats = 3", whose
// settings are the same.
int comparisonRepeat(const dp::RunRecord& run, const std::vector<const dp::RunRecord*>& runs);

// Training seconds from the start of the run to the end of each epoch: the x
// of "accuracy vs time".
std::vector<double> cumulativeSeconds(const dp::RunRecord& run);

// Cumulative training seconds up to and including the first epoch whose test
// accuracy is at least `targetAccuracy`; empty if no epoch reached it.
std::optional<double> secondsToAccuracy(const dp::RunRecord& run, double targetAccuracy);

// One entry per run, in the same order. `chosenBaseline`: the id of a run
// the user picked as every run's baseline, where it is fair; empty: none.
std::vector<RunComparison> compareRuns(const std::vector<dp::RunRecord>& runs,
                                       double targetAccuracy = 0.8,
                                       const std::string& chosenBaseline = {});
