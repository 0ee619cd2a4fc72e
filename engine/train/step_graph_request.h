#pragma once

// Whether a replica's training step may become a CUDA Graph, and its key
// (backend/step_graph.h): host logic, so that a CPU test covers every case
// (tests/train/test_step_ops, tests/gpu/test_cuda_host_logic). Replica::train_step
// fills a ReplicaStep and hands step_graph_request()'s answer to
// Backend::run_step; a backend without graphs runs the step whatever it says.
// A step timed op by op (dp-train --profile-ops) is refused by the timer
// itself (OpProfiler::run_step): its notes of each call are host work.

#include <array>
#include <cstdint>

#include "backend/step_graph.h"

namespace dp {

// What a replica's training step is, as far as capturing it goes.
struct ReplicaStep {
    // Ranks of the run. One only: with more, each step's gradient all-reduce
    // is a collective the host drives and waits for (the threads' ring, the
    // replicas' device copies on one GPU, MPI; NCCL's waits poll for errors
    // and timeouts), which no graph replays. With one, the reducer and
    // synchronized BatchNorm have nothing to exchange and enqueue nothing.
    int world = 1;
    // A simulated slower device (--slow-devices) waits on the host mid-step.
    bool straggler = false;
    // Dropout's masks take the step's number as a kernel argument: every
    // step's key differs, so no graph would ever replay.
    bool draws_per_step = false;
    // The batch gathered on the device from the resident set by indices
    // staged at a fixed address; false when it is gathered on the host and
    // uploaded (DP_CUDA_STEP_SYNC=1, a set too large to be resident).
    bool batch_on_device = false;
    // The key's by-value arguments.
    int rows = 0;          // this replica's shard
    int global_batch = 0;  // the loss's grad scale, 1 / global batch
    int micro_batches = 1;
    float lr = 0, weight_decay = 0;
    std::uint64_t step = 0;  // dropout's, kept in the key only where it is read
    // The device addresses the step reads and writes (StepGraphKey::buffers).
    std::array<const void*, 8> buffers{};
};

// Why the step must run eagerly, for a log line; null when it may be captured.
inline const char* step_graph_refusal(const ReplicaStep& step) {
    if (step.world != 1) return "more than one replica: the all-reduce is driven by the host";
    if (step.straggler) return "a simulated straggler waits on the host inside the step";
    if (step.draws_per_step) return "dropout draws new masks every step";
    if (!step.batch_on_device) return "the batch is gathered on the host and uploaded";
    return nullptr;
}

// The request Replica::train_step passes to Backend::run_step.
inline StepGraphRequest step_graph_request(const ReplicaStep& step) {
    return {.key = {.rows = step.rows,
                    .global_batch = step.global_batch,
                    .micro_batches = step.micro_batches,
                    .lr_bits = float_bits(step.lr),
                    .weight_decay_bits = float_bits(step.weight_decay),
                    .dropout_step = step.draws_per_step ? step.step : 0,
                    .buffers = step.buffers},
            .capturable = step_graph_refusal(step) == nullptr};
}

}  // namespace dp
