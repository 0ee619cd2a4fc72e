#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace dp {

// What one rank does to its own buffer in one step of a collective among
// `ranks` buffers of `count` floats: adds (or copies) the floats
// [begin, end) of rank `source`'s buffer into the same floats of its own.
struct ChunkTransfer {
    enum class Kind { add, copy };
    Kind kind;
    int source;
    std::size_t begin, end;
};

// A collective as steps of chunk transfers, the same for every executor: the
// thread communicators run a rank's transfers on its thread, the GPU
// replicas' communicator (replica_copy_communicator.h) on its stream. Steps
// are separated by a barrier; within a step, no rank writes floats another
// rank reads or writes (tests/parallel checks every schedule for it), so a
// step's transfers may run at once. Computed on the fly: nothing allocated.
//
// All-reduce strategies:
//  - "naive", d2l's: step 0, rank 0 adds every other rank's buffer into its
//    own, in rank order; step 1, every other rank copies rank 0's.
//  - "ring", NCCL's: the buffer is cut into N chunks (chunk i is
//    [count*i/N, count*(i+1)/N)); rank r's left neighbour is rank r-1 mod N.
//    Reduce-scatter, steps s = 0..N-2: rank r adds chunk (r-s-1) mod N of its
//    left neighbour's buffer into its own; afterwards rank r holds the full
//    sum of chunk (r+1) mod N. All-gather, steps s = 0..N-2: rank r copies
//    chunk (r-s) mod N from its left neighbour. Each rank moves 2(N-1)/N of
//    the buffer, and all ranks work at once. Sum order of chunk c:
//    ((x_c + x_c+1) + x_c+2) + ... (ranks mod N), the same on every call.
// Broadcast: one step, every rank but the root copies the root's buffer.
// Reduce: one step, the root adds every other rank's buffer into its own, in
// rank order (with root 0, the sum naive's all-reduce makes, bit for bit);
// nn.DataParallel's gather of outputs and of gradients to device 0.
class CollectiveSchedule {
public:
    // Throws dp::Error naming the known strategies for an unknown one.
    static CollectiveSchedule all_reduce(const std::string& strategy, int ranks, std::size_t count);
    static CollectiveSchedule broadcast(int ranks, std::size_t count, int root);
    static CollectiveSchedule reduce(int ranks, std::size_t count, int root);

    int steps() const;
    // How many transfers `rank` makes in `step`, and the i-th of them.
    int transfers(int rank, int step) const;
    ChunkTransfer transfer(int rank, int step, int i) const;

private:
    enum class Kind { naive, ring, broadcast, reduce };
    CollectiveSchedule(Kind kind, int ranks, std::size_t count, int root)
        : kind_(kind), ranks_(ranks), count_(count), root_(root) {}

    Kind kind_;
    int ranks_;
    std::size_t count_;
    int root_;
};

// The all-reduce strategies, in the order to show them.
std::vector<std::string> all_reduce_strategies();

}  // namespace dp
