#pragma once

#include <cstddef>
#include <vector>

#include "parallel/bucket_plan.h"
#include "collective/communicator.h"

namespace dp {

// One replica's side of the gradient all-reduce (PyTorch DDP's reducer):
// each bucket is reduced as soon as backward has finished its gradients, in
// the same order on every rank. On a GPU the reduction runs on its own stream
// while backward goes on; on CPU devices it runs on the device thread between
// layers.
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

    // Seconds spent in collectives since begin_step: the all-reduce wait.
    double seconds() const { return seconds_; }

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
