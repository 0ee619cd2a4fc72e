// libdp-cuda.so's entry point: the factories of module/cuda_module.h.
#include "module/cuda_module.h"

#include <utility>

#include "backend/cuda/cuda_backend.h"
#include "parallel/nccl_communicator.h"
#include "parallel/replica_copy_communicator.h"
#include "platform/cuda/cuda_devices.h"

namespace dp {
namespace {

std::unique_ptr<Communicator> make_nccl_communicator(const std::vector<int>& ordinals,
                                                     const std::string& strategy,
                                                     CollectiveTimeout timeout) {
    return std::make_unique<NcclCommunicator>(ordinals, strategy, std::move(timeout));
}

std::unique_ptr<Communicator> make_nccl_rank_communicator(const NcclUniqueId& id, int rank,
                                                          int ranks, int ordinal,
                                                          const std::string& strategy,
                                                          CollectiveTimeout timeout) {
    return std::make_unique<NcclCommunicator>(id, rank, ranks, ordinal, strategy,
                                              std::move(timeout));
}

std::unique_ptr<Communicator> make_replica_copy_communicator(int ordinal, int ranks,
                                                             const std::string& strategy,
                                                             CollectiveTimeout timeout) {
    return std::make_unique<ReplicaCopyCommunicator>(ordinal, ranks, strategy, std::move(timeout));
}

const CudaModule kCudaModule{
    .version = kCudaModuleVersion,
    .devices = &cuda_devices,
    .use_device = &use_cuda_device,
    .make_backend = &make_cuda_backend,
    .build_versions = &cuda_build_versions,
    .make_nccl_communicator = &make_nccl_communicator,
    .nccl_unique_id = &nccl_unique_id,
    .make_nccl_rank_communicator = &make_nccl_rank_communicator,
    .make_replica_copy_communicator = &make_replica_copy_communicator,
};

}  // namespace
}  // namespace dp

extern "C" [[gnu::visibility("default")]] const dp::CudaModule* dp_cuda_module() {
    return &dp::kCudaModule;
}
