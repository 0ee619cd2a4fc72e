#pragma once

// How the devices of a run sum their gradients: the --allreduce setting.
// Settings, records, the history, the CLI and the workbench's settings file
// spell it as a word; the engine holds it as this enum, and the one pair
// below turns the one into the other. A leaf header (no engine includes): the
// communicators, the record and the scaling predictor all take it.

#include <string_view>
#include <vector>

namespace dp {

enum class AllReduceStrategy {
    naive,  // d2l's: rank 0 sums every buffer, the others copy the sum back
    ring,   // NCCL's: reduce-scatter, then all-gather
    // nn.DataParallel's step: outputs gathered on device 0, gradients summed
    // there as naive's, and device 0 alone updates and broadcasts.
    dataparallel,
    // What the records of earlier dp-train --distributed builds name: MPI's
    // own all-reduce, which ran as ring. Read from records, never asked of a run.
    mpi,
};

// The word for a strategy: "naive", "ring", "dataparallel" or "mpi".
const char* all_reduce_strategy_name(AllReduceStrategy strategy);

// The strategy a word names (any of the four), or dp::Error "unknown
// all-reduce strategy 'tree' (known: naive, ring, dataparallel)".
AllReduceStrategy parse_all_reduce_strategy(std::string_view name);

// The strategies a run can be asked for, in the order front ends offer them:
// naive, ring, dataparallel (not mpi).
const std::vector<AllReduceStrategy>& run_strategies();

// The strategy a run set to `strategy` ran: ring for mpi, else itself. What
// the rules and the predictor hold an earlier MPI record to.
AllReduceStrategy strategy_as_run(AllReduceStrategy strategy);

// The all-reduce whose schedule (parallel/collective_schedule.h) a
// strategy's communicator runs: naive for dataparallel (its collectives all
// go through device 0 as naive's do), ring for mpi, else itself.
AllReduceStrategy schedule_strategy(AllReduceStrategy strategy);

}  // namespace dp
