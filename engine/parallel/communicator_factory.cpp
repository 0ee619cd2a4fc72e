#include "parallel/communicator_factory.h"

#include <utility>

#include "parallel/collective_schedule.h"
#include "parallel/overlapping_communicator.h"
#include "parallel/thread_communicator.h"
#include "module/cuda_module.h"

namespace dp {

std::string collective_strategy(AllReduceStrategy strategy) {
    return all_reduce_strategy_name(schedule_strategy(strategy));
}

std::unique_ptr<Communicator> make_thread_communicator(AllReduceStrategy strategy, int ranks,
                                                       CollectiveTimeout timeout) {
    return std::make_unique<ThreadCommunicator>(collective_strategy(strategy), ranks,
                                                std::move(timeout));
}

std::unique_ptr<Communicator> make_local_communicator(const std::vector<DeviceInfo>& devices,
                                                      AllReduceStrategy strategy,
                                                      double timeout_seconds) {
    CollectiveTimeout timeout{timeout_seconds, {}};
    for (const DeviceInfo& device : devices) timeout.rank_names.push_back(device.id);
    // select_devices never mixes kinds, so the first device speaks for all.
    if (!devices.empty() && devices.front().kind == DeviceKind::cuda) {
        std::vector<int> ordinals;
        for (const DeviceInfo& device : devices) ordinals.push_back(device.cuda_ordinal);
        // Replicas on one GPU (select_devices allows no other sharing): NCCL
        // takes one rank per GPU, so device copies reduce among them.
        if (ordinals.size() > 1 && ordinals[0] == ordinals[1])
            return require_cuda_module().make_replica_copy_communicator(
                ordinals[0], int(ordinals.size()), collective_strategy(strategy), std::move(timeout));
        return require_cuda_module().make_nccl_communicator(ordinals, collective_strategy(strategy),
                                                            std::move(timeout));
    }
    auto threads = make_thread_communicator(strategy, int(devices.size()), std::move(timeout));
    if (devices.size() == 1) return threads;  // nothing to exchange, nothing to overlap
    return std::make_unique<OverlappingCommunicator>(std::move(threads));
}

}  // namespace dp
