#include "train/distributed_init.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "core/error.h"
#include "core/setting_ref.h"
#include "parallel/collective_timeout.h"
#include "parallel/communicator_factory.h"
#include "parallel/mpi_communicator.h"
#include "module/cuda_module.h"

namespace dp {
namespace {

std::unique_ptr<Communicator> rank_communicator(const MpiSession& mpi, const DeviceInfo& device,
                                                AllReduceStrategy allreduce,
                                                CollectiveTimeout timeout) {
    if (device.kind != DeviceKind::cuda)
        return std::make_unique<MpiCommunicator>(collective_strategy(allreduce), std::move(timeout));
    const CudaModule& cuda = require_cuda_module();
    NcclUniqueId id{};
    if (mpi.rank() == 0) id = cuda.nccl_unique_id();
    mpi.broadcast_bytes(id.data(), id.size(), 0);
    return cuda.make_nccl_rank_communicator(id, mpi.rank(), mpi.size(), device.cuda_ordinal,
                                            collective_strategy(allreduce), std::move(timeout));
}

// How a timeout names each rank: "rank 2 (node2, cpu:0)", so that the rank
// that stopped answering can be found on its machine.
std::vector<std::string> rank_names(const std::vector<std::string>& hosts,
                                    const std::vector<std::string>& devices) {
    std::vector<std::string> names;
    for (std::size_t rank = 0; rank < devices.size(); ++rank)
        names.push_back("rank " + std::to_string(rank) + " (" + hosts[rank] + ", " +
                        devices[rank] + ")");
    return names;
}

// "label=value" lines as data_fingerprint writes them.
std::vector<std::pair<std::string, std::string>> fingerprint_fields(const std::string& text) {
    std::vector<std::pair<std::string, std::string>> fields;
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        const std::string line = text.substr(start, end - start);
        const std::size_t equals = line.find('=');
        fields.emplace_back(line.substr(0, equals),
                            equals == std::string::npos ? "" : line.substr(equals + 1));
        start = end + 1;
    }
    return fields;
}

// "training samples 10000 (20000 on rank 0), ...": every field in which
// `theirs` (rank `rank`'s) differs from rank 0's.
std::string fingerprint_difference(const std::string& rank0, const std::string& theirs, int rank) {
    const auto ours = fingerprint_fields(rank0), other = fingerprint_fields(theirs);
    if (ours.size() != other.size())
        return "its data description (rank " + std::to_string(rank) +
               " runs another dp-train version)";
    std::string difference;
    for (std::size_t i = 0; i < ours.size(); ++i)
        if (ours[i] != other[i])
            difference += (difference.empty() ? "" : ", ") + other[i].first + " " +
                          other[i].second + " (" + ours[i].second + " on rank 0)";
    return difference;
}

}  // namespace

void check_same_data(const MpiSession& mpi, const std::string& fingerprint) {
    const std::vector<std::string> all = mpi.all_gather(fingerprint);
    std::vector<int> differing;
    for (int rank = 1; rank < int(all.size()); ++rank)
        if (all[std::size_t(rank)] != all[0]) differing.push_back(rank);
    if (differing.empty()) return;
    std::string ranks;
    for (std::size_t i = 0; i < differing.size() && i < 8; ++i)
        ranks += (i ? ", " : "") + std::to_string(differing[i]);
    if (differing.size() > 8) ranks += " and " + std::to_string(differing.size() - 8) + " more";
    const int first = differing.front();
    // Every rank has every fingerprint, so every rank throws this same line.
    throw Error("the ranks loaded different data (rank" + std::string(differing.size() > 1 ? "s " : " ") +
                ranks + " unlike rank 0): rank " + std::to_string(first) + " has " +
                fingerprint_difference(all[0], all[std::size_t(first)], first) +
                "; give every rank the same data set, the same files at the same " +
                setting("data_dir"));
}

namespace {

// What a rank broadcasts in place of its settings when it cannot start; no
// settings text begins with a control character.
const std::string cannot_start = "\x01" "cannot start";

}  // namespace

bool rank_zero_started(const MpiSession& mpi) { return mpi.broadcast(cannot_start, 0) != cannot_start; }

void check_same_settings(const MpiSession& mpi, const TrainConfig& config) {
    const std::string mine = shared_settings(config);
    const std::string rank0 = mpi.broadcast(mine, 0);
    if (rank0 == cannot_start) throw RankZeroCannotStart("rank 0 could not read its command line");
    const std::string difference = first_difference(mine, rank0, "rank 0");
    if (!difference.empty())
        throw Error("settings differ from rank 0's: " + difference +
                    "; give every rank the same command line");
}

DeviceInfo rank_device(int local_rank, const std::vector<DeviceInfo>& available) {
    std::vector<DeviceInfo> gpus;
    for (const auto& device : available)
        if (device.kind == DeviceKind::cuda) gpus.push_back(device);
    if (gpus.empty()) return available[std::size_t(local_rank) % available.size()];
    if (std::size_t(local_rank) >= gpus.size())
        throw Error("local rank " + std::to_string(local_rank) + " has no GPU of its own (this node has " +
                    std::to_string(gpus.size()) + "): start at most one rank per GPU on each node");
    return gpus[std::size_t(local_rank)];
}

std::string rank_device_name(const DeviceInfo& device) {
    if (device.kind == DeviceKind::cpu && device.cores.size() == 1)
        return "cpu:" + std::to_string(device.cores.front());
    return device.id;
}

DistributedRank distributed_init(const MpiSession& mpi, const TrainConfig& config) {
    const DeviceInfo device = rank_device(mpi.local_rank(), available_devices());
    // In this order on every rank: the gathers, then the communicator's bootstrap.
    std::vector<std::string> rank_devices = mpi.all_gather(rank_device_name(device));
    const std::vector<std::string> hosts = mpi.all_gather(mpi.processor_name());
    std::unique_ptr<Communicator> communicator =
        rank_communicator(mpi, device, config.allreduce,
                          {config.collective_timeout_s, rank_names(hosts, rank_devices)});
    // `mpi` outlives the Trainer that calls this (the caller's session).
    return {device, ProcessPart{std::move(communicator), mpi.rank(), std::move(rank_devices),
                                [&mpi](const std::string& fingerprint) {
                                    check_same_data(mpi, fingerprint);
                                }}};
}

}  // namespace dp
