#include "parallel/communicator.h"

#include <utility>

#include "core/error.h"
#include "parallel/naive_communicator.h"
#include "parallel/overlapping_communicator.h"
#include "parallel/ring_communicator.h"
#ifdef DP_HAVE_CUDA
#include "parallel/nccl_communicator.h"
#endif

namespace dp {
namespace {

template <typename ThreadStrategy>
std::unique_ptr<Communicator> make_strategy(int ranks, CollectiveTimeout timeout) {
    return std::make_unique<ThreadStrategy>(ranks, std::move(timeout));
}

struct Strategy {
    const char* name;
    std::unique_ptr<Communicator> (*make)(int ranks, CollectiveTimeout timeout);
};

constexpr Strategy kStrategies[] = {
    {"naive", &make_strategy<NaiveCommunicator>},
    {"ring", &make_strategy<RingCommunicator>},
};

}  // namespace

std::vector<std::string> thread_communicator_strategies() {
    std::vector<std::string> names;
    for (const Strategy& strategy : kStrategies) names.emplace_back(strategy.name);
    return names;
}

std::unique_ptr<Communicator> make_thread_communicator(const std::string& strategy, int ranks,
                                                       CollectiveTimeout timeout) {
    for (const Strategy& known : kStrategies)
        if (strategy == known.name) return known.make(ranks, std::move(timeout));
    std::string known_names;
    for (const std::string& name : thread_communicator_strategies())
        known_names += (known_names.empty() ? "" : ", ") + name;
    throw Error("unknown all-reduce strategy '" + strategy + "' (known: " + known_names + ")");
}

std::unique_ptr<Communicator> make_local_communicator(const std::vector<DeviceInfo>& devices,
                                                      const std::string& strategy,
                                                      double timeout_seconds) {
    CollectiveTimeout timeout{timeout_seconds, {}};
    for (const DeviceInfo& device : devices) timeout.rank_names.push_back(device.id);
#ifdef DP_HAVE_CUDA
    // select_devices never mixes kinds, so the first device speaks for all.
    if (!devices.empty() && devices.front().kind == DeviceKind::cuda) {
        std::vector<int> ordinals;
        for (const DeviceInfo& device : devices) ordinals.push_back(device.cuda_ordinal);
        return std::make_unique<NcclCommunicator>(ordinals, strategy, std::move(timeout));
    }
#endif
    auto threads = make_thread_communicator(strategy, int(devices.size()), std::move(timeout));
    if (devices.size() == 1) return threads;  // nothing to exchange, nothing to overlap
    return std::make_unique<OverlappingCommunicator>(std::move(threads));
}

}  // namespace dp
