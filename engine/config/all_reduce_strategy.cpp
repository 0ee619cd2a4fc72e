#include "config/all_reduce_strategy.h"

#include <string>

#include "core/error.h"

namespace dp {

const char* all_reduce_strategy_name(AllReduceStrategy strategy) {
    switch (strategy) {
    case AllReduceStrategy::naive: return "naive";
    case AllReduceStrategy::ring: return "ring";
    case AllReduceStrategy::dataparallel: return "dataparallel";
    case AllReduceStrategy::mpi: return "mpi";
    }
    return "ring";
}

AllReduceStrategy parse_all_reduce_strategy(std::string_view name) {
    for (const AllReduceStrategy strategy :
         {AllReduceStrategy::naive, AllReduceStrategy::ring, AllReduceStrategy::dataparallel,
          AllReduceStrategy::mpi})
        if (name == all_reduce_strategy_name(strategy)) return strategy;
    std::string known;
    for (const AllReduceStrategy strategy : run_strategies())
        known += (known.empty() ? "" : ", ") + std::string(all_reduce_strategy_name(strategy));
    throw Error("unknown all-reduce strategy '" + std::string(name) + "' (known: " + known + ")");
}

const std::vector<AllReduceStrategy>& run_strategies() {
    static const std::vector<AllReduceStrategy> strategies = {
        AllReduceStrategy::naive, AllReduceStrategy::ring, AllReduceStrategy::dataparallel};
    return strategies;
}

AllReduceStrategy strategy_as_run(AllReduceStrategy strategy) {
    return strategy == AllReduceStrategy::mpi ? AllReduceStrategy::ring : strategy;
}

AllReduceStrategy schedule_strategy(AllReduceStrategy strategy) {
    const AllReduceStrategy as_run = strategy_as_run(strategy);
    return as_run == AllReduceStrategy::dataparallel ? AllReduceStrategy::naive : as_run;
}

}  // namespace dp
