#include "parallel/gradient_reducer.h"

#include <chrono>

namespace dp {

GradientReducer::GradientReducer(Communicator& communicator, int rank,
                                 std::vector<GradientBucket> buckets, float* gradients)
    : communicator_(communicator), rank_(rank), buckets_(std::move(buckets)), gradients_(gradients) {}

void GradientReducer::begin_step() {
    next_ = 0;
    seconds_ = 0;
}

void GradientReducer::on_gradients_final(std::size_t first_final_parameter) {
    while (next_ < buckets_.size() && buckets_[next_].first_param >= first_final_parameter)
        reduce_next();
}

void GradientReducer::finish_step() {
    while (next_ < buckets_.size()) reduce_next();
    timed([&] { communicator_.wait_all(rank_); });
}

void GradientReducer::reduce_next() {
    const auto& bucket = buckets_[next_++];
    float* data = gradients_ + bucket.offset;
    // The step's last bucket (the first layers' gradients, final when
    // backward ends) has nothing left to overlap with: reduced at once, it
    // is the same sum, and a CPU device's thread adds and copies it itself
    // instead of waking its communication thread and sleeping until that is
    // done (two thread switches more a step, each a wait on a busy core).
    if (next_ == buckets_.size())
        timed([&] { communicator_.all_reduce_sum(rank_, data, bucket.size); });
    else
        timed([&] { communicator_.start_all_reduce_sum(rank_, data, bucket.size); });
}

template <typename Collective>
void GradientReducer::timed(Collective&& collective) {
    const auto start = std::chrono::steady_clock::now();
    collective();
    seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace dp
