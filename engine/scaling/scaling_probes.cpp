#include "scaling/scaling_probes.h"

#include <algorithm>

#include "core/format.h"
#include "devices/core_sharing_probe.h"
#include "devices/device.h"
#include "parallel/allreduce_probe.h"

namespace dp {

LinkModel measure_thread_link(AllReduceAlgorithm algorithm, int devices) {
    const int probed = std::min(devices, kMaxProbeRanks);
    const AllReduceProbe probe = probe_all_reduce(algorithm_name(algorithm), probed);
    LinkModel link = thread_link_from_fit(algorithm, probed, probe.cores, probe.fit.alpha,
                                          probe.fit.beta, probe.wake_seconds);
    if (probed < devices)
        link.source += format(" (measured on %d threads, the most the probe starts, for a run "
                              "of %d devices)", probed, devices);
    return link;
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
