#include "scaling/speedup_gap.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "config/slow_devices.h"
#include "core/error.h"
#include "core/format.h"
#include "core/setting_ref.h"
#include "models/model_registry.h"

namespace dp {
namespace {

// Per-step means of a run: over its steps, averaged over its devices, plus
// the least all-reduce wait of any device. DataParallel's phases: the mean
// output gather, device 0's serial update (the most any device spent
// updating) and the least broadcast (device 0's, which waits for no update).
struct StepMeans {
    double compute = 0, allreduce = 0, least_allreduce = 0, data = 0, update = 0;
    double gather = 0, most_update = 0, least_broadcast = 0;
    double straggler_wait = 0;
    double steps_per_epoch = 0, seconds_per_epoch = 0, half_range = 0;
};

StepMeans step_means(const RunSummary& run) {
    if (!has_step_timings(run))
        throw Error("the speedup gap needs runs with finished epochs and step timings");
    StepMeans means;
    const double devices = double(run.step_totals.size()), steps = double(run.steps);
    means.least_allreduce = run.step_totals.front().allreduce / steps;
    means.least_broadcast = run.step_totals.front().broadcast / steps;
    for (const DeviceStepTiming& device : run.step_totals) {
        means.gather += device.gather / steps / devices;
        means.most_update = std::max(means.most_update, device.update / steps);
        means.least_broadcast = std::min(means.least_broadcast, device.broadcast / steps);
        means.compute += (device.forward + device.backward) / steps / devices;
        means.allreduce += device.allreduce / steps / devices;
        means.data += device.data / steps / devices;
        means.update += device.update / steps / devices;
        means.straggler_wait += device.straggler_wait / steps / devices;
        means.least_allreduce = std::min(means.least_allreduce, device.allreduce / steps);
    }
    const EpochTime time = run.epoch_time();
    means.seconds_per_epoch = time.median;
    means.half_range = (time.max - time.min) / 2;
    // The steps of the finished epochs: a stopped epoch's are in the totals
    // too, but the mean per step is what matters.
    means.steps_per_epoch = steps / double(run.timed_epochs());
    return means;
}

// Seconds below this print as 0.00: a saving that small is not worth a word.
constexpr double kPrintedSeconds = 0.005;

GapPart* part_named(SpeedupGap& gap, const std::string& short_name) {
    const auto part = std::find_if(gap.parts.begin(), gap.parts.end(),
                                   [&](const GapPart& p) { return p.short_name == short_name; });
    return part == gap.parts.end() ? nullptr : &*part;
}

// A DataParallel run's own parts: its update runs on device 0 alone while the
// others wait (so it counts whole, not as the devices' mean), then device 0
// broadcasts the parameters, and every step gathers the outputs to device 0.
// The other devices' wait for the update is in their broadcast time, which
// the serial update part stands for.
void name_dataparallel_parts(SpeedupGap& gap, double serial_update, double broadcast,
                             double gather) {
    std::string ddp = "DDP (";
    ddp += setting("allreduce") + " ring)";
    GapPart& reduce = *part_named(gap, "all-reduce");
    reduce.name = "gradient reduce to device 0";
    reduce.short_name = "gradient reduce";
    reduce.advice = ddp + " all-reduces over every device's link, bucket by bucket during backward";
    GapPart& update = *part_named(gap, "update");
    update = {"serial update on device 0 (the others wait)", "serial update",
              ddp + " updates on every device at once", serial_update};
    gap.parts.push_back({"parameter broadcast from device 0", "broadcast",
                         ddp + " keeps each replica's parameters where they are", broadcast});
    gap.parts.push_back({"output gather to device 0 and scatter back", "output gather",
                         ddp + " computes each shard's loss where it is", gather});
}

// float32 gradients of `model` on Fashion-MNIST (models/model_registry.h);
// 0 for a model the registry does not know.
std::size_t model_gradient_bytes(const std::string& model) {
    for (const ModelInfo& info : model_registry())
        if (info.name == model) return info.parameters * sizeof(float);
    return 0;
}

}  // namespace

bool has_step_timings(const RunSummary& run) {
    return !run.epochs.empty() && run.steps > 0 && !run.step_totals.empty();
}

SpeedupGap speedup_gap(const RunSummary& one, const RunSummary& many) {
    const StepMeans a = step_means(one), b = step_means(many);
    SpeedupGap gap;
    gap.devices = int(many.devices.size());
    gap.measured = b.seconds_per_epoch;
    gap.ideal = a.seconds_per_epoch / gap.devices;
    gap.noise = b.half_range + a.half_range / gap.devices;
    const double n = gap.devices;
    // Per epoch: the N-device run's time in a phase minus the 1-device run's / N.
    const auto part = [&](double many_per_step, double one_per_step) {
        return b.steps_per_epoch * many_per_step - a.steps_per_epoch * one_per_step / n;
    };
    gap.parts = {
        {"compute on smaller per-device batches", "compute",
         "a larger global batch keeps each device busier (" + setting("batch_size") + ")",
         part(b.compute, a.compute)},
        {"all-reduce not hidden behind backward", "all-reduce",
         "try larger buckets (" + setting("bucket_mb") + "), ring all-reduce, or fewer all-reduces (" +
             setting("accumulate") + ")",
         part(b.least_allreduce, a.least_allreduce)},
        // The others' wait beyond the least, and a straggler's own wait
        // (config/slow_devices.h), measured: one slow device's wait w a step
        // shows as about w(N-1)/N of mean all-reduce wait plus w/N of its own.
        {"waiting for the slowest device", "slowest device",
         "devices differ in speed or share a core: give each its own core",
         b.steps_per_epoch * (b.allreduce - b.least_allreduce + b.straggler_wait) -
             a.steps_per_epoch * (a.allreduce - a.least_allreduce + a.straggler_wait) / n},
        {"data loading and host work", "data", "the host gathers each shard: fewer, larger steps help",
         part(b.data, a.data)},
        {"update (every device updates all weights)", "update",
         "the update does not shrink with more devices: a larger batch makes it a smaller share",
         part(b.update, a.update)},
    };
    if (b.gather > 0) name_dataparallel_parts(gap, part(b.most_update, a.most_update),
                                              part(b.least_broadcast, a.least_broadcast),
                                              part(b.gather, a.gather));
    double explained = 0;
    for (const GapPart& p : gap.parts) explained += p.seconds;
    gap.parts.push_back({"outside the measured steps", "outside steps",
                         "the epoch loop and progress reporting", gap.gap() - explained});
    return gap;
}

void fit_gap_to_settings(SpeedupGap& gap, const TrainConfig& one, const TrainConfig& many) {
    const int devices = std::max(1, int(many.devices.size()));
    if (GapPart* compute = part_named(gap, "compute");
        compute && many.batch_size / devices >= one.batch_size) {
        compute->name = "compute at 1 device's per-device batch";
        compute->advice = "each device computes as much as 1 device did: devices sharing cores or "
                          "memory bandwidth slow it down";
    }
    if (GapPart* slowest = part_named(gap, "slowest device"); slowest && !many.slow_devices.empty())
        slowest->advice = "a straggler (" + setting("slow_devices") + " " +
                          slow_devices_text(many.slow_devices) +
                          ") holds up every synchronous step: leave it out to remove this part";
    // DataParallel's gradient reduce has its own part and advice.
    GapPart* allreduce_part = part_named(gap, "all-reduce");
    if (!allreduce_part) return;
    GapPart& allreduce = *allreduce_part;
    // Larger buckets help only a model whose gradients span several buckets
    // (LeNet's 0.24 MB fit one 25 MB bucket: advice to grow it is noise), and
    // ring only a run not on it already.
    const double gradient_mb = double(model_gradient_bytes(many.model)) / (1024.0 * 1024.0);
    std::vector<std::string> tries;
    if (gradient_mb > many.bucket_mb)
        tries.push_back(format("larger buckets (%s, now %g MB for %.3g MB of gradients)",
                               setting("bucket_mb").c_str(), many.bucket_mb, gradient_mb));
    if (strategy_as_run(many.allreduce) != AllReduceStrategy::ring) tries.push_back("ring all-reduce (" + setting("allreduce") + ")");
    tries.push_back("fewer all-reduces per epoch: a larger global batch (" + setting("batch_size") +
                    "), which " + setting("accumulate") + " fits in memory");
    allreduce.advice = "try " + tries.front();
    for (std::size_t i = 1; i < tries.size(); ++i)
        allreduce.advice += (i + 1 == tries.size() ? ", or " : ", ") + tries[i];
}

void account_core_sharing(SpeedupGap& gap, int cores) {
    if (cores <= 0 || cores >= gap.devices || gap.gap() <= 0) return;
    // 1 device's time over the cores: the fastest these devices can be here.
    const double ceiling_time = gap.ideal * gap.devices / cores;
    const double sharing = std::min(ceiling_time, gap.measured) - gap.ideal;
    const double scale = (gap.gap() - sharing) / gap.gap();
    for (GapPart& part : gap.parts) part.seconds *= scale;
    gap.parts.insert(gap.parts.begin(),
                     {"devices share cores", "shared cores",
                      format("%d devices take turns on %d cores, so they cannot be more than %d "
                             "times faster than 1: give each device its own core (fewer devices, "
                             "or a machine with more cores)",
                             gap.devices, cores, cores),
                      sharing});
}

SpeedupGap explain_speedup_gap(const TrainConfig& one_config, const RunSummary& one,
                               const TrainConfig& many_config, const RunSummary& many, int cores) {
    SpeedupGap gap = speedup_gap(one, many);
    fit_gap_to_settings(gap, one_config, many_config);
    account_core_sharing(gap, cores);
    separate_noise(gap);
    return gap;
}

double SpeedupGap::lost() const {
    double sum = 0;
    for (const GapPart& part : parts) sum += std::max(part.seconds, 0.0);
    return sum;
}

double SpeedupGap::saved() const {
    double sum = 0;
    for (const GapPart& part : parts) sum -= std::min(part.seconds, 0.0);
    return sum;
}

void separate_noise(SpeedupGap& gap) {
    if (gap.noise <= 0) return;
    GapPart pooled{"within noise:", "within noise",
                   format("each of these is within the epochs' own spread (%.2f s): more epochs "
                          "or --repeat tell them apart",
                          gap.noise),
                   0, true};
    std::vector<GapPart> kept;
    int pooled_parts = 0;
    for (GapPart& part : gap.parts) {
        if (part.noise || std::abs(part.seconds) > gap.noise) {
            kept.push_back(std::move(part));
            continue;
        }
        pooled.name += (pooled_parts++ == 0 ? " " : ", ") + part.short_name;
        pooled.seconds += part.seconds;
    }
    if (pooled_parts == 0) return;
    kept.push_back(std::move(pooled));
    gap.parts = std::move(kept);
}

std::string SpeedupGap::verdict() const {
    if (within_noise())
        return format("within noise: %d devices are about %d times faster (a gap of %+.2f s per "
                      "epoch, while epochs vary by up to %.2f s)",
                      devices, devices, gap(), noise);
    const auto by_seconds = [](const GapPart& x, const GapPart& y) { return x.seconds < y.seconds; };
    std::vector<GapPart> told;  // the parts that stand out of the noise
    std::copy_if(parts.begin(), parts.end(), std::back_inserter(told), [](const GapPart& p) { return !p.noise; });
    if (gap() <= 0) {
        // Beyond ideal: name what made it so (usually smaller per-device
        // batches fitting the caches better).
        const auto most = std::min_element(told.begin(), told.end(), by_seconds);
        if (most == told.end() || most->seconds >= 0)
            return format("no gap: %d devices are at or beyond %d times faster (no single part "
                          "stands out of the noise)",
                          devices, devices);
        return format("no gap: %d devices are at or beyond %d times faster (%s: %.2f s per epoch "
                      "less than ideal)",
                      devices, devices, most->name.c_str(), -most->seconds);
    }
    const auto largest = std::max_element(told.begin(), told.end(), by_seconds);
    if (largest == told.end() || largest->seconds <= 0)
        return format("no single part stands out of the noise: the gap of %.2f s per epoch is "
                      "parts each within the epochs' spread (%.2f s) added up",
                      gap(), noise);
    // A part that saved time is named beside the shares of the time lost,
    // which it nets against: a share of the net gap would pass 100%.
    const auto most_saved = std::min_element(told.begin(), told.end(), by_seconds);
    if (most_saved->seconds <= -kPrintedSeconds)
        return format("%s: %.0f%% of the %.2f s per epoch lost (%s saved %.2f s of it); %s",
                      largest->name.c_str(), 100 * share(*largest), lost(), most_saved->name.c_str(),
                      -most_saved->seconds, largest->advice.c_str());
    return format("%s: %.0f%% of the gap; %s", largest->name.c_str(), 100 * share(*largest),
                  largest->advice.c_str());
}

std::string format_speedup_gap(const SpeedupGap& gap) {
    std::string text = format("gap to the ideal speedup on %d devices: %.2f sec/epoch measured, "
                              "%.2f ideal (1 device's / %d), gap %.2f\n",
                              gap.devices, gap.measured, gap.ideal, gap.devices, gap.gap());
    // Shares of a gap that is nothing or negative say nothing: seconds only.
    // A part that saved time says so in place of a share.
    const bool shares = gap.gap() > 0.01 * gap.ideal && !gap.within_noise();
    for (const GapPart& part : gap.parts)
        text += !shares           ? format("  %-42s %7.2f s\n", part.name.c_str(), part.seconds)
                : part.seconds < 0 ? format("  %-42s %7.2f s  saved\n", part.name.c_str(), part.seconds)
                                   : format("  %-42s %7.2f s  %5.0f%%\n", part.name.c_str(),
                                            part.seconds, 100 * gap.share(part));
    if (shares && gap.saved() >= kPrintedSeconds)
        text += format("  (shares of the %.2f s lost; %.2f s saved brings it to the gap)\n",
                       gap.lost(), gap.saved());
    return text + "verdict: " + gap.verdict() + "\n";
}

}  // namespace dp
