#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "config/train_config.h"
#include "record/run_metrics.h"

namespace dp {

// Why N devices fall short of N times faster: the gap between the N-device
// run's seconds per epoch and the ideal (the 1-device run's / N), split into
// what the engine measured in every step. Each part is the N-device run's
// time in a phase per epoch minus the 1-device run's / N:
//   - compute: forward and backward on smaller per-device batches, which run
//     less efficiently (and, on CPU devices sharing a core's units, slower);
//   - all-reduce not hidden: the all-reduce wait of the device that waited
//     least, i.e. communication that backward did not cover;
//   - waiting for the slowest device: the other devices' extra wait, and a
//     straggler's own (--slow-device: DeviceStepTiming::straggler_wait);
//   - data loading and host work: gathering and uploading the shards;
//   - update: every device updates all parameters, so it does not shrink;
//   - outside the steps: epoch time the phases do not cover (the loop,
//     progress reports).
// The parts add up to the gap exactly; the last one says how much of it the
// per-step phases leave unexplained. A part no larger than the epochs' own
// spread cannot be told from noise: separate_noise pools such parts into one
// "within noise" part, which still keeps the sum. Strong scaling compares the same
// global batch; weak scaling (the batch grows with N) works the same way,
// each run's phases weighted by its own steps per epoch.
struct GapPart {
    std::string name;
    std::string short_name;  // "all-reduce": a chart's axis label, where the name has no room
    std::string advice;  // what to try when this part dominates
    double seconds = 0;  // per epoch; negative when N devices do better than ideal here
    // The parts each within the noise, pooled (separate_noise): drawn grey,
    // never blamed in the verdict.
    bool noise = false;
};

struct SpeedupGap {
    int devices = 0;
    // Seconds per epoch as comparisons quote them: the median of the steady
    // epochs (record/run_metrics.h: EpochTime).
    double measured = 0;  // the N-device run's
    double ideal = 0;     // the 1-device run's / devices
    // How far the gap could move with the epochs' own spread: half the
    // N-device run's range of steady epochs plus half the 1-device run's / N.
    double noise = 0;
    std::vector<GapPart> parts;

    double gap() const { return measured - ideal; }
    // A gap no larger than the noise says nothing about where time went.
    bool within_noise() const { return std::abs(gap()) <= noise; }
    // The time the parts that cost time add up to, and the time the others
    // saved (smaller per-device batches can fit the caches better): lost()
    // less saved() is the gap, and lost() is the gap itself when no part saved.
    double lost() const;
    double saved() const;
    // A part's fraction of the time lost, from 0 to 1: the shares of the
    // parts that cost time add up to 1 (to the whole gap when none saved
    // any). A part that saved time has none (its seconds say it), and no
    // part has one in a gap within the noise (shares of noise are noise):
    // never the -31% and 114% that fractions of a net gap gave.
    double share(const GapPart& part) const {
        return part.seconds > 0 && lost() > 0 && gap() > 0 && !within_noise() ? part.seconds / lost() : 0;
    }
    // "all-reduce not hidden: 61% of the gap; try larger buckets (--bucket-mb) or ring"
    std::string verdict() const;
};

// Whether the run has what speedup_gap needs: finished epochs and step timings.
bool has_step_timings(const RunSummary& run);

// `one` ran on 1 device, `many` on more; both need epochs and step timings
// (has_step_timings), else dp::Error.
SpeedupGap speedup_gap(const RunSummary& one, const RunSummary& many);

// Words the gap's parts for the settings the runs used, so that its advice
// can be followed: the all-reduce advice quotes the bucket size in use and
// offers ring all-reduce only to a run not already on it; when the N-device
// run kept 1 device's per-device batch (weak scaling), its compute part is
// named for that, not for "smaller per-device batches".
void fit_gap_to_settings(SpeedupGap& gap, const TrainConfig& one, const TrainConfig& many);

// Devices that take turns on fewer cores than there are devices (4 CPU
// devices on 2 cores) cannot beat `cores` times 1 device's speed: the gap up
// to that ceiling is put first as its own part, "devices share cores", and
// the measured parts are scaled down to the rest in proportion (time-slicing
// stretches every phase: the all-reduce waits for a device whose core is
// busy with another). `cores`: the distinct cores the N-device run's devices
// had; none (0) or as many as devices changes nothing.
void account_core_sharing(SpeedupGap& gap, int cores);

// What a front end shows: speedup_gap of the two runs, its parts worded for
// their settings (fit_gap_to_settings), the share of too few cores put
// first (account_core_sharing, `cores` as there) and the parts within the
// noise pooled (separate_noise).
SpeedupGap explain_speedup_gap(const TrainConfig& one_config, const RunSummary& one,
                               const TrainConfig& many_config, const RunSummary& many, int cores);

// Pools the parts no larger than the noise (each of them something the
// epochs' own spread could have made) into one part, "within noise", put
// last; the parts still add up to the gap. Nothing changes without noise
// (a comparison with one steady epoch a run has no spread to go by).
void separate_noise(SpeedupGap& gap);

// A plain-text table: each part's seconds per epoch and share of the gap, then the verdict.
std::string format_speedup_gap(const SpeedupGap& gap);

}  // namespace dp
