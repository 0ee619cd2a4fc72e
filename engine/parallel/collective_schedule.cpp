#include "parallel/collective_schedule.h"

#include "core/error.h"

namespace dp {
namespace {

// Chunk `index` mod `ranks` of a buffer of `count` floats; `index` may be negative.
ChunkTransfer ring_transfer(ChunkTransfer::Kind kind, int rank, int index, int ranks,
                            std::size_t count) {
    const auto wrapped = std::size_t(((index % ranks) + ranks) % ranks);
    const auto parts = std::size_t(ranks);
    return {kind, (rank + ranks - 1) % ranks, count * wrapped / parts,
            count * (wrapped + 1) / parts};
}

}  // namespace

std::vector<std::string> all_reduce_strategies() { return {"naive", "ring"}; }

CollectiveSchedule CollectiveSchedule::all_reduce(const std::string& strategy, int ranks,
                                                  std::size_t count) {
    if (ranks < 1) throw Error("a collective needs at least one rank");
    if (strategy == "naive") return {Kind::naive, ranks, count, 0};
    if (strategy == "ring") return {Kind::ring, ranks, count, 0};
    std::string known;
    for (const std::string& name : all_reduce_strategies())
        known += (known.empty() ? "" : ", ") + name;
    throw Error("unknown all-reduce strategy '" + strategy + "' (known: " + known + ")");
}

namespace {

void require_root(const char* collective, int ranks, int root) {
    if (root < 0 || root >= ranks)
        throw Error(std::string(collective) + ": root " + std::to_string(root) +
                    " is out of range for a communicator of " + std::to_string(ranks) + " ranks");
}

}  // namespace

CollectiveSchedule CollectiveSchedule::broadcast(int ranks, std::size_t count, int root) {
    require_root("broadcast", ranks, root);
    return {Kind::broadcast, ranks, count, root};
}

CollectiveSchedule CollectiveSchedule::reduce(int ranks, std::size_t count, int root) {
    require_root("reduce", ranks, root);
    return {Kind::reduce, ranks, count, root};
}

int CollectiveSchedule::steps() const {
    switch (kind_) {
        case Kind::naive: return 2;
        case Kind::ring: return 2 * (ranks_ - 1);
        case Kind::broadcast:
        case Kind::reduce: return 1;
    }
    return 0;
}

int CollectiveSchedule::transfers(int rank, int step) const {
    switch (kind_) {
        case Kind::naive: return step == 0 ? (rank == 0 ? ranks_ - 1 : 0) : (rank == 0 ? 0 : 1);
        case Kind::ring: return 1;
        case Kind::broadcast: return rank == root_ ? 0 : 1;
        case Kind::reduce: return rank == root_ ? ranks_ - 1 : 0;
    }
    return 0;
}

ChunkTransfer CollectiveSchedule::transfer(int rank, int step, int i) const {
    using K = ChunkTransfer::Kind;
    switch (kind_) {
        case Kind::naive:
            return step == 0 ? ChunkTransfer{K::add, i + 1, 0, count_}
                             : ChunkTransfer{K::copy, 0, 0, count_};
        case Kind::ring:
            return step < ranks_ - 1 ? ring_transfer(K::add, rank, rank - step - 1, ranks_, count_)
                                     : ring_transfer(K::copy, rank, rank - (step - ranks_ + 1),
                                                     ranks_, count_);
        case Kind::broadcast: return {K::copy, root_, 0, count_};
        case Kind::reduce: return {K::add, i < root_ ? i : i + 1, 0, count_};
    }
    return {K::copy, rank, 0, 0};
}

}  // namespace dp
