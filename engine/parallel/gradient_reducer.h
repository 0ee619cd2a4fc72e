#pragma once

#include <cstddef>
#include <vector>

#include "parallel/bucket_plan.h"
#include "collective/communicator.h"

namespace dp {

// One replica's side of the gradient all-reduce (PyTorch DDP's reducer):
// each bucket is reduced as soon as backward has finished its gradients, in
// the same order on every rank. The reduction runs while backward goes on: on
// a GPU's communication stream, on a CPU device's communication thread
// (OverlappingCommunicator); finish_step waits for all of it before the update.
// The last bucket of a step, complete only when backward is, is reduced at
// once (all_reduce_sum) on the device thread.
class GradientReducer {
public:
    GradientReducer(Communicator& communicator, int rank, std::vector<GradientBucket> buckets,
                    float* gradients);

    void begin_step();
    // Sequential::backward's hook: reduces every bucket now complete.
    void on_gradients_final(std::size_t first_final_parameter);
    // Reduces the buckets still pending (all of them for a replica with no
    // rows) and waits for every reduction of the step.
    void finish_step();

    // Seconds since begin_step that the calling (device) thread spent in the
    // communicator: the all-reduce wait. Where the reduction overlaps backward
    // (start_all_reduce_sum returns at once), that is the wait in finish_step
    // for what backward did not hide plus the wait for the slowest rank, not
    // the time the communication took. On CPU devices the communication
    // thread's adds and copies share the device's core, so the time they take
    // from backward counts as backward: each phase is the wall time the
    // device thread spent in it, and the phases still add up to the step.
    double seconds() const { return seconds_; }
    // The ranks the reductions span: with one, a step reduces nothing.
    int ranks() const { return communicator_.size(); }

private:
    void reduce_next();
    template <typename Collective>
    void timed(Collective&& collective);

    Communicator& communicator_;
    int rank_;
    std::vector<GradientBucket> buckets_;
    float* gradients_;
    std::size_t next_ = 0;
    double seconds_ = 0;
};

}  // namespace dp
