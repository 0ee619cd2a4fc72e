#include "scaling/scaling_predictor.h"

#include <algorithm>
#include <cmath>

#include "config/slow_devices.h"
#include "core/checked_math.h"
#include "core/error.h"
#include "core/format.h"
#include "core/median.h"
#include "models/model_registry.h"

namespace dp {
namespace {

// ceil(a / b) for positive integers.

// A device's phases over a run, per sample and per step: the device whose
// phases (without the all-reduce) took longest, since the step waits for it.
struct DevicePhases {
    double compute = 0, data = 0, update = 0, all_reduce = 0;
    std::int64_t samples = 0;
};

DevicePhases slowest_device(const RunSummary& run) {
    DevicePhases slowest;
    double longest = -1;
    for (const DeviceStepTiming& device : run.step_totals) {
        const double busy = device.data + device.forward + device.backward + device.update;
        if (busy <= longest) continue;
        longest = busy;
        // DataParallel's gather and broadcast are communication, which the
        // link model predicts; a straggler's wait the straggler term does.
        slowest = {device.forward + device.backward, device.data, device.update,
                   device.allreduce + device.gather + device.broadcast + device.straggler_wait,
                   device.shard};
    }
    return slowest;
}

void require_step_timings(const RunSummary& run) {
    if (run.epochs.empty() || run.steps == 0 || run.step_totals.empty())
        throw Error("the scaling predictor needs a run with finished epochs and step timings");
}

// Compute per sample per device of `run`, averaged over its devices.
double compute_per_sample(const RunSummary& run) {
    double sum = 0;
    int devices = 0;
    for (const DeviceStepTiming& device : run.step_totals)
        if (device.shard > 0) {
            sum += (device.forward + device.backward) / double(device.shard);
            ++devices;
        }
    return devices ? sum / devices : 0;
}

// The same of `run`'s slowest device: devices taking turns on a core do not
// overlap their work evenly (one may finish its forward before the other
// starts), but the last of them ends when the core has done all of it.
double slowest_compute_per_sample(const RunSummary& run) {
    double slowest = 0;
    for (const DeviceStepTiming& device : run.step_totals)
        if (device.shard > 0)
            slowest = std::max(slowest, (device.forward + device.backward) / double(device.shard));
    return slowest;
}

struct StepParts {
    double compute = 0, all_reduce = 0, update = 0, data_and_host = 0, straggler_wait = 0;
    double total() const { return compute + all_reduce + update + data_and_host + straggler_wait; }
    StepParts& operator+=(const StepParts& other) {
        compute += other.compute;
        all_reduce += other.all_reduce;
        update += other.update;
        data_and_host += other.data_and_host;
        straggler_wait += other.straggler_wait;
        return *this;
    }
    StepParts times(double factor) const {
        return {compute * factor, all_reduce * factor, update * factor, data_and_host * factor,
                straggler_wait * factor};
    }
};

// One step of a `batch`-sample global batch on `devices` devices: data,
// forward and backward until the all-reduce, then the update, each phase
// ending when the last core is done (the all-reduce and the next step wait
// for it).
StepParts step_parts(const WorkloadProfile& profile, const PredictionSettings& settings,
                     std::int64_t batch, int devices) {
    // Devices share cores only where the link is this machine's threads.
    const CoreSharing sharing = settings.link.shared_cores > 0 ? settings.sharing : CoreSharing{};
    const double per_sample = profile.compute_per_sample + profile.data_per_sample;
    std::vector<double> before_all_reduce, update;
    for (int device = 0; device < devices; ++device) {
        // parallel/batch_split.h's split: rows*(i+1)/n - rows*i/n.
        const auto shard = batch * (device + 1) / devices - batch * device / devices;
        before_all_reduce.push_back(double(shard) * per_sample);
        update.push_back(profile.update_per_step);
    }
    const double until_all_reduce = sharing.finish_seconds(before_all_reduce);
    StepParts parts;
    parts.compute = per_sample > 0 ? until_all_reduce * profile.compute_per_sample / per_sample : 0;
    parts.data_and_host = until_all_reduce - parts.compute + profile.host_per_step;
    parts.update = sharing.finish_seconds(update);
    parts.straggler_wait = straggler_wait_seconds(profile.straggler, parts.compute, devices);
    if (settings.algorithm == AllReduceStrategy::dataparallel) {
        // Device 0 alone updates (the others wait, sharing no core's time).
        // A batch's outputs are few bytes beside the parameters: left out.
        if (devices > 1) parts.update = profile.update_per_step;
        parts.all_reduce = dataparallel_step_seconds(settings.link, devices, profile.gradient_bytes, 0);
        return parts;
    }
    const AllReduceTerms terms = all_reduce_terms(settings.algorithm, settings.link, devices);
    const double wake = devices > 1 ? settings.link.wake : 0;
    parts.all_reduce = profile.buckets * (wake + terms.latency_terms * settings.link.alpha) +
                       terms.byte_terms * profile.gradient_bytes * settings.link.beta;
    return parts;
}

PredictedPoint predict_one(const WorkloadProfile& profile, const PredictionSettings& settings,
                           int devices) {
    const int per_device = std::max(1, profile.global_batch / std::max(1, profile.measured_devices));
    const std::int64_t global =
        settings.scaling == Scaling::strong ? profile.global_batch : std::int64_t(per_device) * devices;
    // A batch larger than the data set is one batch of all of it.
    const std::int64_t samples = std::max<std::int64_t>(profile.samples_per_epoch, 1);
    const std::int64_t batch = std::min(global, samples);
    const std::int64_t full_steps = samples / batch, rest = samples % batch;
    StepParts epoch = step_parts(profile, settings, batch, devices).times(double(full_steps));
    if (rest > 0) epoch += step_parts(profile, settings, rest, devices);
    PredictedPoint point;
    point.devices = devices;
    point.global_batch = int(global);
    point.compute = epoch.compute;
    point.all_reduce = epoch.all_reduce;
    point.update = epoch.update;
    point.data_and_host = epoch.data_and_host;
    point.straggler_wait = epoch.straggler_wait;
    point.seconds_per_epoch = epoch.total();
    return point;
}

}  // namespace

double straggler_wait_seconds(double factor, double compute, int devices) {
    return devices > 1 && factor > 1 ? (factor - 1) * compute : 0;
}

const char* scaling_name(Scaling scaling) { return scaling == Scaling::strong ? "strong" : "weak"; }

std::vector<LinkModel> link_presets() {
    // alpha: NCCL's own cost model, the latency of one ring step with its
    // Simple protocol (NVIDIA/nccl src/graph/tuning.cc, hwLat: NVLink 3.4 us,
    // PCI 5.7 us, network 9.6 us). beta: 1 / the link's bandwidth each way.
    struct Preset {
        const char* name;
        double gigabytes_per_second, alpha_us;
        const char* bandwidth_source;
        const char* alpha_source;
    };
    static constexpr Preset presets[] = {
        {"PCIe 4.0 x16", 31.5, 5.7, "PCI-SIG PCIe 4.0: 16 GT/s x 16 lanes, 128b/130b = 31.5 GB/s each way",
         "on PCI"},
        {"NVLink 3 (A100)", 235, 3.4,
         "A100: 12 NVLink 3 links, 300 GB/s each way (600 GB/s total); NCCL's model caps an "
         "A100's bus bandwidth at 235 GB/s (tuning.cc)",
         "on NVLink"},
        {"10 GbE", 1.25, 9.6, "IEEE 802.3ae: 10 Gb/s = 1.25 GB/s line rate (TCP gets about 94% of it)",
         "over the network"},
        {"100 GbE", 12.5, 9.6, "IEEE 802.3ba: 100 Gb/s = 12.5 GB/s line rate (RoCE)",
         "over the network"},
    };
    std::vector<LinkModel> links;
    for (const Preset& preset : presets)
        links.push_back({preset.name, preset.alpha_us * 1e-6, 1 / (preset.gigabytes_per_second * 1e9),
                         format("%s; alpha: NCCL tuning.cc ring step %s, %.1f us",
                                preset.bandwidth_source, preset.alpha_source, preset.alpha_us),
                         0, 0});
    return links;
}

AllReduceTerms all_reduce_terms(AllReduceStrategy algorithm, const LinkModel& link, int devices) {
    if (devices <= 1) return {};
    algorithm = strategy_as_run(algorithm);
    const double n = devices;
    if (link.shared_cores > 0) {
        const auto cores = std::int64_t(link.shared_cores);
        const double turns = double(ceil_div(std::int64_t(devices), cores));  // ranks on the busiest core
        if (algorithm == AllReduceStrategy::ring)
            return {(2 * n - 1) * turns, 2 * (n - 1) / n * turns};
        // Rank 0 adds N-1 buffers alone; then N-1 ranks copy the sum, C at a time.
        return {3 * turns, (n - 1) + double(ceil_div(std::int64_t(devices - 1), cores))};
    }
    if (algorithm == AllReduceStrategy::ring) return {2 * (n - 1), 2 * (n - 1) / n};
    return {2 * (n - 1), 2 * (n - 1)};
}

namespace {

// A collective with device 0 at one end (broadcast, reduce): over a link,
// its N-1 messages of the buffer; on shared cores, 2 barriers (in turns)
// around the buffers the busiest core moves: the other ranks copying, C at
// a time (`parallel`), or rank 0 adding N-1 alone.
AllReduceTerms rooted_terms(const LinkModel& link, int devices, bool parallel) {
    if (devices <= 1) return {};
    const double n = devices;
    if (link.shared_cores > 0) {
        const auto cores = std::int64_t(link.shared_cores);
        const double turns = double(ceil_div(std::int64_t(devices), cores));
        return {2 * turns, parallel ? double(ceil_div(std::int64_t(devices - 1), cores)) : n - 1};
    }
    return {n - 1, n - 1};
}

}  // namespace

AllReduceTerms broadcast_terms(const LinkModel& link, int devices) {
    return rooted_terms(link, devices, true);
}

AllReduceTerms reduce_terms(const LinkModel& link, int devices) {
    return rooted_terms(link, devices, false);
}

double all_reduce_seconds(AllReduceStrategy algorithm, const LinkModel& link, int devices,
                          double bytes) {
    if (devices <= 1) return 0;
    const AllReduceTerms terms = all_reduce_terms(algorithm, link, devices);
    return link.wake + terms.latency_terms * link.alpha + terms.byte_terms * bytes * link.beta;
}

double dataparallel_step_seconds(const LinkModel& link, int devices, double parameter_bytes,
                                 double output_bytes) {
    if (devices <= 1) return 0;
    const auto seconds = [&](const AllReduceTerms& terms, double bytes) {
        return terms.latency_terms * link.alpha + terms.byte_terms * bytes * link.beta;
    };
    const AllReduceTerms reduce = reduce_terms(link, devices);
    const AllReduceTerms broadcast = broadcast_terms(link, devices);
    // Both reduces follow compute on every device: they pay the wake-up.
    return 2 * link.wake + seconds(reduce, parameter_bytes) + seconds(broadcast, parameter_bytes) +
           seconds(reduce, output_bytes) + seconds(broadcast, output_bytes);
}

LinkModel thread_link_from_fit(AllReduceStrategy algorithm, int devices, int cores,
                               double fit_alpha, double fit_beta, double wake) {
    if (devices < 2) throw Error("a link is measured between at least 2 devices");
    if (cores < 1) throw Error("a thread link needs at least one core");
    LinkModel link;
    link.name = "this machine's threads";
    link.shared_cores = cores;
    const AllReduceTerms terms = all_reduce_terms(algorithm, link, devices);
    link.alpha = std::max(0.0, fit_alpha) / terms.latency_terms;
    link.beta = std::max(0.0, fit_beta) / terms.byte_terms;
    link.wake = std::max(0.0, wake);
    link.source = format("measured: %s all-reduce of %d threads on %d cores, t = %.1f us + "
                         "bytes / %.2f GB/s back to back, %.2f ms more after computing",
                         all_reduce_strategy_name(algorithm), devices, cores, fit_alpha * 1e6,
                         fit_beta > 0 ? 1e-9 / fit_beta : 0.0, link.wake * 1e3);
    return link;
}

double CoreSharing::finish_seconds(const std::vector<double>& device_seconds) const {
    if (cores <= 0)  // every device on its own
        return device_seconds.empty() ? 0 : *std::max_element(device_seconds.begin(), device_seconds.end());
    std::vector<double> core_seconds(std::size_t(cores), 0);
    for (std::size_t device = 0; device < device_seconds.size(); ++device)
        core_seconds[device % std::size_t(cores)] += device_seconds[device];
    std::sort(core_seconds.begin(), core_seconds.end());
    // Run every busy core until the least loaded one finishes, at the speed
    // of that many busy cores; repeat with the rest.
    double seconds = 0, done = 0;
    for (std::size_t i = 0; i < core_seconds.size(); ++i) {
        if (core_seconds[i] <= done) continue;
        const double busy = double(core_seconds.size() - i);
        const double together =
            cores > 1 ? 1 + (busy_slowdown - 1) * (busy - 1) / double(cores - 1) : 1;
        seconds += (core_seconds[i] - done) * together;
        done = core_seconds[i];
    }
    return seconds;
}

double CoreSharing::slowdown(int devices) const {
    return devices <= 1 ? 1 : finish_seconds(std::vector<double>(std::size_t(devices), 1.0));
}

namespace {

// The straggler term's factor: the slowest of the run's slow devices.
double largest_slowdown(const TrainConfig& config) {
    double largest = 1;
    for (const SlowDevice& slow : parse_slow_devices(config.slow_devices))
        largest = std::max(largest, slow.factor);
    return largest;
}

// DataParallel sums all gradients at once after backward, not bucket by bucket.
int gradient_all_reduces(const TrainConfig& config, double gradient_bytes) {
    if (config.allreduce == AllReduceStrategy::dataparallel) return 1;
    return bucket_count(gradient_bytes, config.bucket_mb);
}

}  // namespace

int bucket_count(double gradient_bytes, double bucket_mb) {
    const double bucket = std::max(1.0, bucket_mb * 1024 * 1024);
    const double first = std::min(bucket, 1024.0 * 1024);
    if (gradient_bytes <= first) return 1;
    return 1 + int(std::ceil((gradient_bytes - first) / bucket));
}

WorkloadProfile workload_profile(const TrainConfig& config, const RunSummary& run,
                                 const CoreSharing& sharing) {
    require_step_timings(run);
    const DevicePhases slowest = slowest_device(run);
    const int devices = int(run.step_totals.size());
    const double slowdown = sharing.slowdown(devices);
    const double steps = double(run.steps), epochs = double(run.timed_epochs());
    std::int64_t samples = 0;
    for (const DeviceStepTiming& device : run.step_totals) samples += device.shard;
    const double seconds = run.timed_epoch_seconds();
    const double step_phases =
        slowest.compute + slowest.data + slowest.update + slowest.all_reduce;

    WorkloadProfile profile;
    profile.samples_per_epoch = std::int64_t(std::llround(double(samples) / epochs));
    profile.global_batch = config.batch_size;
    profile.measured_devices = devices;
    const double shard_samples = double(std::max<std::int64_t>(slowest.samples, 1));
    profile.compute_per_sample = slowest.compute / shard_samples / slowdown;
    profile.data_per_sample = slowest.data / shard_samples / slowdown;
    profile.update_per_step = slowest.update / steps / slowdown;
    profile.host_per_step = std::max(0.0, seconds - step_phases) / steps;
    profile.gradient_bytes = double(model_info(config.model).parameters) * sizeof(float);
    profile.buckets = gradient_all_reduces(config, profile.gradient_bytes);
    profile.straggler = largest_slowdown(config);
    return profile;
}

WorkloadProfile workload_profile_from_epochs(const TrainConfig& config, int devices,
                                             double seconds_per_epoch,
                                             std::int64_t samples_per_epoch,
                                             const CoreSharing& sharing) {
    if (!(seconds_per_epoch > 0) || samples_per_epoch <= 0 || devices < 1)
        throw Error("the scaling predictor needs a run with a finished epoch");
    WorkloadProfile profile;
    profile.samples_per_epoch = samples_per_epoch;
    profile.global_batch = config.batch_size;
    profile.measured_devices = devices;
    // On N devices the epoch's samples are shared out: a device's part is
    // samples / N of them, each taking `slowdown` times longer.
    profile.compute_per_sample =
        seconds_per_epoch * devices / double(samples_per_epoch) / sharing.slowdown(devices);
    profile.gradient_bytes = double(model_info(config.model).parameters) * sizeof(float);
    profile.buckets = gradient_all_reduces(config, profile.gradient_bytes);
    profile.straggler = largest_slowdown(config);
    return profile;
}

CoreSharing fit_core_sharing(int cores, const std::vector<TrainConfig>& configs,
                             const std::vector<RunSummary>& runs) {
    CoreSharing sharing;
    sharing.cores = cores;
    // A device alone: the median of the 1-device runs (dp-train --repeat
    // runs several, on a machine whose speed drifts between them).
    std::vector<double> alone;
    for (const RunSummary& run : runs)
        if (run.step_totals.size() == 1 && run.steps > 0) alone.push_back(compute_per_sample(run));
    if (alone.empty() || cores < 2) return sharing;
    const double alone_per_sample = median_of(alone);
    if (alone_per_sample <= 0) return sharing;
    // Runs on 2..cores devices, each on its own core; only without them runs
    // taking turns on every core, whose devices' compute times read the turns
    // unevenly (dp-train --compare 1,2,4 of LeNet: s 0.7 from 4 devices, 1.0 from 2).
    double sum = 0;
    std::vector<int> fitted;
    for (const bool turns : {false, true}) {
        if (turns && !fitted.empty()) break;
        for (std::size_t i = 0; i < runs.size() && i < configs.size(); ++i) {
            const int devices = int(runs[i].step_totals.size());
            if (devices < 2 || runs[i].steps == 0) continue;
            if (turns && devices > cores && devices % cores == 0) {
                // Every core busy with devices / cores devices in turns: ratio = s * turns.
                sum += slowest_compute_per_sample(runs[i]) / alone_per_sample / double(devices / cores);
            } else if (!turns && devices <= cores) {
                // ratio = 1 + (s - 1)(devices - 1)/(cores - 1), solved for s.
                const double ratio = compute_per_sample(runs[i]) / alone_per_sample;
                sum += 1 + (ratio - 1) * double(cores - 1) / double(devices - 1);
            } else {
                continue;
            }
            fitted.push_back(devices);
        }
    }
    if (fitted.empty()) return sharing;
    sharing.busy_slowdown = sum / double(fitted.size());
    // "the 2-device run's", "the 2, 3-device runs'" (repeats name a count once).
    std::string counts;
    for (std::size_t i = 0; i < fitted.size(); ++i)
        if (std::find(fitted.begin(), fitted.begin() + std::ptrdiff_t(i), fitted[i]) ==
            fitted.begin() + std::ptrdiff_t(i))
            counts += (counts.empty() ? "" : ", ") + std::to_string(fitted[i]);
    sharing.source = "fitted from the " + counts + "-device " +
                     (fitted.size() == 1 ? "run's" : "runs'") + " compute per sample";
    return sharing;
}

double run_wake_seconds(const LinkModel& link, AllReduceStrategy algorithm,
                        const WorkloadProfile& profile, const RunSummary& run) {
    require_step_timings(run);
    const int devices = int(run.step_totals.size());
    if (devices < 2) throw Error("a run on one device has no all-reduce to fit");
    double least = run.step_totals.front().allreduce;
    for (const DeviceStepTiming& device : run.step_totals) least = std::min(least, device.allreduce);
    // DataParallel's wait is its gradient reduce to device 0.
    const AllReduceTerms terms = algorithm == AllReduceStrategy::dataparallel
                                     ? reduce_terms(link, devices)
                                     : all_reduce_terms(algorithm, link, devices);
    const double modelled = profile.buckets * terms.latency_terms * link.alpha +
                            terms.byte_terms * profile.gradient_bytes * link.beta;
    return std::max(0.0, (least / double(run.steps) - modelled) / profile.buckets);
}

FittedWake wake_from_other_runs(int devices, int cores, const std::vector<RunWake>& runs) {
    const auto crowded = [cores](int count) { return cores > 0 && count > cores; };
    FittedWake fitted;
    double sum = 0;
    for (const RunWake& run : runs)
        if ((run.devices != devices || runs.size() == 1) && crowded(run.devices) == crowded(devices)) {
            sum += run.seconds;
            ++fitted.runs;
        }
    if (fitted.runs > 0) fitted.seconds = sum / fitted.runs;
    return fitted;
}

std::vector<int> prediction_device_counts() { return {1, 2, 4, 8, 16, 32, 64}; }

std::vector<PredictedPoint> predict(const WorkloadProfile& profile,
                                    const PredictionSettings& settings,
                                    const std::vector<int>& device_counts) {
    if (profile.samples_per_epoch <= 0 || profile.global_batch <= 0)
        throw Error("the scaling predictor needs a measured run with samples and a batch size");
    const double one = predict_one(profile, settings, 1).seconds_per_epoch;
    std::vector<PredictedPoint> points;
    for (int devices : device_counts) {
        if (devices < 1) throw Error(format("cannot predict for %d devices: counts start at 1", devices));
        PredictedPoint point = predict_one(profile, settings, devices);
        point.speedup = point.seconds_per_epoch > 0 ? one / point.seconds_per_epoch : 0;
        points.push_back(point);
    }
    return points;
}

std::vector<std::string> prediction_assumptions() {
    return {
        "Compute grows with a device's shard: the 1-device run's forward and backward seconds "
        "per sample times the shard, and the all-reduce waits for the last device; smaller "
        "batches are assumed no less efficient per sample.",
        "CPU devices on C cores, pinned round-robin: a core with several devices runs them in "
        "turns, and with k cores busy each computes slower by 1 + (s - 1)(k - 1)/(C - 1), s "
        "measured (shared FMA units, memory, clocks); other users' load is not modelled. Other "
        "links: every device as fast as this machine's one alone.",
        "No overlap: CPU devices reduce each gradient bucket on their own thread, so the "
        "all-reduce adds to the step (GPUs overlap it with backward: there this overstates it).",
        "All-reduce in the alpha-beta model, alpha + bytes * beta a message: ring 2(N-1) steps "
        "of bytes/N, naive 2(N-1) whole buffers through device 0; one flat ring, no contention "
        "beyond the link. On this machine each all-reduce also waits the probed wake-up of "
        "threads that were computing (other work on the cores makes it milliseconds).",
        "Update and host work per step do not shrink with N (every device updates all weights); "
        "weak scaling keeps each device's batch, and predicts time, not accuracy.",
        "DataParallel: the gradients reduced to device 0 in one go after backward (N-1 buffers "
        "through its link), then device 0 alone updates and broadcasts the parameters; each step "
        "also gathers the outputs to device 0 and scatters their gradients (their bytes left "
        "out); the two reduces wait the wake-up.",
        "A straggler (--slow-device, factor f) on 2 or more devices: it computes, then waits "
        "(f - 1) times its compute, and the step waits for it; the 1-device run has none.",
    };
}

}  // namespace dp
