#include "scaling/scaling_probes.h"

#include <algorithm>

#include "core/error.h"
#include "core/format.h"
#include "core/median.h"
#include "devices/core_sharing_probe.h"
#include "devices/device.h"

namespace dp {
namespace {

// One probe's budget when several are taken: five stay within two seconds.
constexpr double kRepeatedProbeBudgetSeconds = 0.3;

// The thread link of `probed` ranks from one all-reduce probe.
ThreadLinkProbe probe_thread_link(AllReduceStrategy algorithm, int probed, double budget_seconds) {
    const AllReduceProbe probe = probe_all_reduce(all_reduce_strategy_name(algorithm), probed, budget_seconds);
    return {thread_link_from_fit(algorithm, probed, probe.cores, probe.fit.alpha, probe.fit.beta,
                                 probe.wake_seconds),
            probe.fit};
}

// What a link probed on fewer threads than the run's devices says of it.
std::string fewer_threads_note(int probed, int devices) {
    if (probed >= devices) return "";
    return format(" (measured on %d threads, the most the probe starts, for a run of %d devices)",
                  probed, devices);
}

template <typename Field>
double median_over(const std::vector<ThreadLinkProbe>& probes, Field field) {
    std::vector<double> values;
    for (const ThreadLinkProbe& probe : probes) values.push_back(field(probe));
    return median_of(values);
}

}  // namespace

double ThreadLinkProbe::gigabytes_per_second() const { return fit.beta > 0 ? 1e-9 / fit.beta : 0; }

double ThreadLinkMeasurement::median_gigabytes_per_second() const {
    return median_over(probes, [](const ThreadLinkProbe& probe) { return probe.gigabytes_per_second(); });
}

double ThreadLinkMeasurement::least_gigabytes_per_second() const {
    double least = probes.empty() ? 0 : probes.front().gigabytes_per_second();
    for (const ThreadLinkProbe& probe : probes) least = std::min(least, probe.gigabytes_per_second());
    return least;
}

double ThreadLinkMeasurement::most_gigabytes_per_second() const {
    double most = 0;
    for (const ThreadLinkProbe& probe : probes) most = std::max(most, probe.gigabytes_per_second());
    return most;
}

LinkModel measure_thread_link(AllReduceStrategy algorithm, int devices) {
    const int probed = std::min(devices, kMaxProbeRanks);
    LinkModel link = probe_thread_link(algorithm, probed, 0.6).link;
    link.source += fewer_threads_note(probed, devices);
    return link;
}

ThreadLinkMeasurement measure_thread_link_repeatedly(AllReduceStrategy algorithm, int devices,
                                                     int probes) {
    if (probes < 1) throw Error("measuring a link takes at least 1 probe");
    const int probed = std::min(devices, kMaxProbeRanks);
    ThreadLinkMeasurement measurement;
    const CpuClock before = read_cpu_clock();
    for (int i = 0; i < probes; ++i)
        measurement.probes.push_back(probe_thread_link(algorithm, probed, kRepeatedProbeBudgetSeconds));
    measurement.load = machine_load_between(before, read_cpu_clock());

    // Each of alpha, beta and wake-up its own median: one probe disturbed
    // in one of them moves none.
    const auto& probed_links = measurement.probes;
    measurement.link = thread_link_from_fit(
        algorithm, probed, probed_links.front().link.shared_cores,
        median_over(probed_links, [](const ThreadLinkProbe& probe) { return probe.fit.alpha; }),
        median_over(probed_links, [](const ThreadLinkProbe& probe) { return probe.fit.beta; }),
        median_over(probed_links, [](const ThreadLinkProbe& probe) { return probe.link.wake; }));
    std::string source = format("%.1f GB/s (%.1f-%.1f) over %d probes; the median ",
                                measurement.median_gigabytes_per_second(),
                                measurement.least_gigabytes_per_second(),
                                measurement.most_gigabytes_per_second(), probes);
    source += measurement.link.source;
    source += fewer_threads_note(probed, devices);
    if (measurement.load.busy())
        source += format("; measured while the machine was busy (other processes used %.1f of %d cores)",
                         measurement.load.other_cores, measurement.load.cores);
    measurement.link.source = source;
    return measurement;
}

ThreadLinkCache::ThreadLinkCache(Measure measure) : measure_(std::move(measure)) {}

ThreadLinkCache::Key ThreadLinkCache::key(AllReduceStrategy algorithm, int devices) {
    // DataParallel sums its gradients with naive's all-reduce
    // (parallel/communicator_factory.h): the same threads, the same link.
    return {schedule_strategy(algorithm), devices};
}

ThreadLinkMeasurement ThreadLinkCache::get(AllReduceStrategy algorithm, int devices) {
    const std::lock_guard measuring(measuring_);
    if (auto found = find(algorithm, devices)) return *found;  // measured while this caller waited
    {
        const std::lock_guard lock(links_mutex_);
        ++taken_;
    }
    const Key measured = key(algorithm, devices);
    ThreadLinkMeasurement measurement = measure_(measured.first, measured.second);
    const std::lock_guard lock(links_mutex_);
    return links_.emplace(measured, std::move(measurement)).first->second;
}

std::optional<ThreadLinkMeasurement> ThreadLinkCache::find(AllReduceStrategy algorithm,
                                                           int devices) const {
    const std::lock_guard lock(links_mutex_);
    const auto found = links_.find(key(algorithm, devices));
    if (found == links_.end()) return std::nullopt;
    return found->second;
}

int ThreadLinkCache::measurements_taken() const {
    const std::lock_guard lock(links_mutex_);
    return taken_;
}

ThreadLinkCache& thread_link_cache() {
    static ThreadLinkCache cache([](AllReduceStrategy algorithm, int devices) {
        return measure_thread_link_repeatedly(algorithm, devices, 5);
    });
    return cache;
}

CoreSharing measure_core_sharing(const std::vector<TrainConfig>& configs,
                                 const std::vector<RunSummary>& runs) {
    const int cores = int(usable_cores().size());
    CoreSharing sharing = fit_core_sharing(cores, configs, runs);
    if (!sharing.source.empty() || cores < 2) {
        if (sharing.source.empty()) sharing.source = "one core: nothing shared";
        return sharing;
    }
    const CoreSharingProbe probe = probe_core_sharing();
    sharing.busy_slowdown = probe.busy_slowdown;
    sharing.source = format("probe: an FMA loop on all %d cores at once ran %.2fx as long as on one",
                            probe.cores, probe.busy_slowdown);
    return sharing;
}

}  // namespace dp
