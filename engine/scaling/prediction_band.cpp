#include "scaling/prediction_band.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/format.h"

namespace dp {
namespace {

// How far from the prediction a phase must be to be named: a quarter more
// compute, half as much again communication (the probes' own spread is wide).
constexpr double kComputeFactor = 1.25;
constexpr double kCommunicationFactor = 1.5;

std::string busy_reason(const std::string& whose, double other_cores, int usable_cores) {
    if (usable_cores > 0)
        return format("the machine was busy while %s trained (other processes kept %.1f of its %d "
                      "cores busy)",
                      whose.c_str(), other_cores, usable_cores);
    return format("the machine was busy while %s trained (other processes kept %.1f cores busy)",
                  whose.c_str(), other_cores);
}

// The phase further from its prediction in the direction of the miss
// (`slower`: measured above the prediction), when it is far enough to name.
std::string phase_reason(const BandEvidence& e, bool slower) {
    const auto excess = [slower](double measured, double predicted, double factor) {
        if (measured <= 0 || predicted <= 0) return -std::numeric_limits<double>::infinity();
        const bool far = slower ? measured > predicted * factor : measured * factor < predicted;
        return far ? std::abs(measured - predicted) : -std::numeric_limits<double>::infinity();
    };
    const double compute = excess(e.compute, e.predicted_compute, kComputeFactor);
    const double communication = excess(e.communication, e.predicted_communication, kCommunicationFactor);
    if (std::max(compute, communication) == -std::numeric_limits<double>::infinity()) return {};
    if (compute >= communication)
        return format("its devices computed %.2f s per epoch against the %.2f s predicted (%s)",
                      e.compute, e.predicted_compute,
                      slower ? "cores slower than the 1-device run's, or shared"
                             : "smaller per-device batches ran faster per sample");
    return format("its all-reduce waits took %.2f s per epoch against the %.2f s the probed link "
                  "predicts (%s)",
                  e.communication, e.predicted_communication,
                  slower ? "communication slower than the probes" : "communication faster than the probes");
}

}  // namespace

void add_phase_evidence(BandEvidence& evidence, const RunSummary& run, const PredictedPoint& predicted) {
    if (run.steps <= 0 || run.step_totals.empty() || run.epochs.empty()) return;
    const double epochs = double(run.timed_epochs());
    double slowest = 0, least = std::numeric_limits<double>::infinity();
    for (const DeviceStepTiming& device : run.step_totals) {
        slowest = std::max(slowest, device.forward + device.backward);
        least = std::min(least, device.allreduce + device.gather + device.broadcast);
    }
    evidence.compute = slowest / epochs;
    evidence.communication = least / epochs;
    evidence.predicted_compute = predicted.compute;
    evidence.predicted_communication = predicted.all_reduce;
}

std::string band_miss_comment(const BandCheck& check, const BandEvidence& evidence) {
    // At 1 device the band is 1x by definition, not a prediction: a repeat
    // of the baseline off it says how noisy the machine is, which the
    // N-device runs' sentences say already.
    if (check.devices < 2 || !(check.band_low > 0) || check.band_high < check.band_low) return {};
    const bool ranged = check.speedup_max > 0;
    const double low = ranged ? check.speedup_min : check.speedup;
    const double high = ranged ? check.speedup_max : check.speedup;
    const bool below = high < check.band_low, above = low > check.band_high;
    if (!below && !above) return {};
    std::string reason;
    if (below && evidence.busy)
        reason = busy_reason(format("the %d-device run", check.devices), evidence.other_cores,
                             evidence.usable_cores);
    else if (above && evidence.baseline_busy)
        reason = busy_reason("its baseline", evidence.baseline_other_cores, 0) +
                 ", which made the baseline slow";
    else if (evidence.steady_epochs < kSteadyEpochsToTrust)
        reason = format("the runs had only %d steady epoch%s (after the first) to measure it by: "
                        "train %d or more epochs, or repeat the comparison",
                        evidence.steady_epochs, evidence.steady_epochs == 1 ? "" : "s",
                        kSteadyEpochsToTrust + 1);
    else
        reason = phase_reason(evidence, below);
    const std::string measured =
        ranged ? format("%.2fx (%.2f-%.2f)", check.speedup, check.speedup_min, check.speedup_max)
               : format("%.2fx", check.speedup);
    const std::string head =
        format("%d device%s: measured %s, %s the predicted %.2f-%.2fx", check.devices,
               check.devices == 1 ? "" : "s", measured.c_str(), below ? "below" : "above",
               check.band_low, check.band_high);
    if (reason.empty())
        return head + "; nothing in the runs' own numbers explains it: see the model's assumptions.";
    return head + ", likely because " + reason + ".";
}

}  // namespace dp
