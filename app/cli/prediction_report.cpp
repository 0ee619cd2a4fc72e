#include "cli/prediction_report.h"

#include <algorithm>
#include <map>
#include <set>

#include "cli/counted_noun.h"
#include "config/slow_devices.h"
#include "core/error.h"
#include "core/format.h"
#include "core/median.h"
#include "scaling/prediction_table.h"
#include "scaling/scaling_probes.h"

namespace dp {
namespace {

// The run the model starts from: of the runs on one device (else of all),
// the one whose sec/epoch is the median (the lower of the middle two), so
// that with --repeat a repeat on a slow moment of the machine is not what
// every prediction scales from.
std::size_t base_run(const std::vector<RunSummary>& runs) {
    std::vector<std::size_t> candidates;
    for (std::size_t i = 0; i < runs.size(); ++i)
        if (runs[i].step_totals.size() == 1) candidates.push_back(i);
    if (candidates.empty())
        for (std::size_t i = 0; i < runs.size(); ++i) candidates.push_back(i);
    std::sort(candidates.begin(), candidates.end(), [&](std::size_t a, std::size_t b) {
        return runs[a].epoch_time().median < runs[b].epoch_time().median;
    });
    return candidates[(candidates.size() - 1) / 2];
}

// Each device count and global batch the runs measured, at the median of
// their runs' sec/epoch (each the median of its steady epochs, as the
// comparison quotes them): the repeats of --repeat give one point.
std::vector<MeasuredPoint> measured_points(const std::vector<TrainConfig>& configs,
                                           const std::vector<RunSummary>& runs) {
    std::map<std::pair<int, int>, std::vector<double>> seconds;
    for (std::size_t i = 0; i < runs.size(); ++i)
        seconds[{int(runs[i].step_totals.size()), configs[i].batch_size}].push_back(
            runs[i].epoch_time().median);
    std::vector<MeasuredPoint> measured;
    for (auto& [key, values] : seconds) measured.push_back({key.first, key.second, median_of(values)});
    return measured;
}

// Speedups on 1..64 devices for every link and strategy (DataParallel's
// beside the all-reduces'), strong and weak.
std::string speedup_grid(const WorkloadProfile& profile, const std::vector<LinkChoice>& links,
                         const CoreSharing& sharing) {
    std::string text = format("%-34s", "speedup on N devices");
    for (int devices : prediction_device_counts()) text += format(" %6d", devices);
    text += "\n";
    for (const Scaling scaling : {Scaling::strong, Scaling::weak})
        for (const LinkChoice& link : links)
            for (const AllReduceStrategy algorithm : {AllReduceStrategy::ring, AllReduceStrategy::naive,
                                                       AllReduceStrategy::dataparallel}) {
                text += format("%-34.34s", format("%s, %s, %s", scaling_name(scaling),
                                                  all_reduce_strategy_name(algorithm),
                                                  link.at(2).name.c_str()).c_str());
                for (int devices : prediction_device_counts()) {
                    PredictionSettings settings{algorithm, link.at(devices), sharing, scaling};
                    text += format(" %6.2f", predict(profile, settings, {1, devices}).back().speedup);
                }
                text += "\n";
            }
    return text;
}

// This machine's thread all-reduce at each measured device count (at least
// 2; the nearest is used for others), from the process's link cache (the
// median of 5 probes, as the workbench's Scaling tab and Classroom quote it),
// with the wake-up the measured runs paid; says what it took from the runs
// in `text`.
LinkChoice this_machines_threads(const std::vector<MeasuredPoint>& measured,
                                 const std::vector<RunSummary>& runs, AllReduceStrategy algorithm,
                                 const WorkloadProfile& profile, int cores, std::string& text) {
    std::set<int> counts;
    for (const MeasuredPoint& point : measured)
        if (point.devices >= 2) counts.insert(point.devices);
    if (counts.empty()) counts.insert(2);
    LinkChoice threads;
    for (int count : counts) {
        threads.counts.push_back(count);
        threads.links.push_back(thread_link_cache().get(algorithm, count).link);
    }
    // The wake-up the runs on several devices paid replaces the probe's
    // where other runs can say (wake_from_other_runs): it is the load they
    // ran under.
    std::vector<RunWake> run_wakes;
    for (const RunSummary& run : runs)
        if (const int n = int(run.step_totals.size()); n >= 2)
            run_wakes.push_back({n, run_wake_seconds(threads.at(n), algorithm, profile, run)});
    for (std::size_t i = 0; i < threads.links.size() && !run_wakes.empty(); ++i) {
        const int count = threads.counts[i];
        const FittedWake fitted = wake_from_other_runs(count, cores, run_wakes);
        if (fitted.runs == 0) {
            text += format("thread all-reduce wake-up on %d devices: %.2f ms, the probe's "
                           "(no run on another count %s)\n",
                           count, threads.links[i].wake * 1e3,
                           cores > 0 && count > cores
                               ? format("of more devices than the %d cores", cores).c_str()
                               : "with a core for each device");
            continue;
        }
        threads.links[i].wake = fitted.seconds;
        text += format("thread all-reduce wake-up on %d devices: %.2f ms, the mean of %s "
                       "multi-device %s all-reduce waits beyond the probe's fit\n",
                       count, fitted.seconds * 1e3, run_wakes.size() == 1 ? "the" : "the other",
                       fitted.runs == 1 ? "run's" : "runs'");
    }
    return threads;
}

}  // namespace

std::string prediction_report(const std::vector<TrainConfig>& configs,
                              const std::vector<RunSummary>& runs,
                              const std::vector<DeviceInfo>& devices) {
    if (runs.empty() || runs.size() != configs.size())
        throw Error("--predict needs the runs it predicts from");
    const bool cpu = !devices.empty() && devices.front().kind == DeviceKind::cpu;
    const CoreSharing sharing = cpu ? measure_core_sharing(configs, runs) : CoreSharing{};
    const std::size_t base = base_run(runs);
    WorkloadProfile profile = workload_profile(configs[base], runs[base], sharing);
    // A comparison's straggler is in its larger runs only (its 1-device run
    // has none): the predictions on 2 or more devices carry it.
    for (const TrainConfig& config : configs)
        for (const SlowDevice& slow : parse_slow_devices(config.slow_devices))
            profile.straggler = std::max(profile.straggler, slow.factor);
    const AllReduceStrategy algorithm = strategy_as_run(configs[base].allreduce);

    const std::vector<MeasuredPoint> measured = measured_points(configs, runs);

    std::string text = format(
        "\nwhat if: %s, %lld samples per epoch, global batch %d on %s; per sample "
        "%.1f us forward+backward and %.1f us data; per step %.2f ms update and %.2f ms host "
        "work; %.0f KB of gradients in %s per step\n",
        configs[base].model.c_str(), (long long)profile.samples_per_epoch, profile.global_batch,
        counted(profile.measured_devices, "device", "devices").c_str(),
        profile.compute_per_sample * 1e6, profile.data_per_sample * 1e6,
        profile.update_per_step * 1e3, profile.host_per_step * 1e3, profile.gradient_bytes / 1e3,
        counted(profile.buckets, "all-reduce", "all-reduces").c_str());
    if (profile.straggler > 1)
        text += format("a straggler on 2 or more devices: one takes %gx its compute time\n",
                       profile.straggler);
    if (cpu)
        text += format("cores shared by CPU devices: %d; with all busy a device takes %.2fx its time alone (%s)\n",
                       sharing.cores, sharing.busy_slowdown, sharing.source.c_str());
    text += format("sec/epoch predicted; strong: global batch %d; weak: %d per device; measured "
                   "runs beside their scaling, error = (predicted - measured) / measured\n",
                   profile.global_batch, profile.global_batch / profile.measured_devices);

    std::vector<LinkChoice> links;
    if (cpu) links.push_back(this_machines_threads(measured, runs, algorithm, profile, sharing.cores, text));
    for (const LinkModel& preset : link_presets()) links.push_back({{}, {preset}});
    // The measured runs ran over this machine's threads only.
    const std::vector<MeasuredPoint> none;
    for (const LinkChoice& link : links) {
        text += '\n';
        text += format_prediction_table(profile, algorithm, link, sharing,
                                        link.at(2).shared_cores > 0 ? measured : none);
    }
    text += '\n';
    text += speedup_grid(profile, links, sharing);
    text += "\nassumptions:\n";
    for (const std::string& line : prediction_assumptions()) text += "  - " + line + "\n";
    return text;
}

}  // namespace dp
