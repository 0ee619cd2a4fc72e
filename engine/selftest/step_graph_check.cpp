// The step_graphs check (gpu_checks.h): dp-train's own training step
// (Replica::train_step through Backend::run_step), captured as CUDA Graphs
// and replayed, gives the bits of running it eagerly.

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "backend/cuda/cuda_backend.h"
#include "core/error.h"
#include "selftest/gpu_checks.h"
#include "selftest/training_checks.h"

namespace dp::gpu_checks {
namespace {

// Three epochs of 2 full batches of 64 and a last partial one of 40.
constexpr int kSamples = 2 * selftest::kBatch + 40;
constexpr int kEpochs = 3;

// The replica's CUDA backend, in deterministic mode (the same cuDNN
// algorithms in both runs), with graphs on or off: the group's own backend,
// made from the environment's switches, is set aside for it.
BackendWrapper deterministic_cuda(bool graphs) {
    return [graphs](std::unique_ptr<Backend>, int) {
        CudaBackendOptions options;
        options.deterministic = true;
        options.step_graphs = graphs;
        return make_cuda_backend(0, options);
    };
}

}  // namespace

std::string step_graphs_replay_like_eager() {
    const TrainTestSets data = selftest::training_subset();
    const auto eager =
        selftest::train_lenet_resident("cuda:0", data, kSamples, kEpochs, deterministic_cuda(false));
    const auto graphed =
        selftest::train_lenet_resident("cuda:0", data, kSamples, kEpochs, deterministic_cuda(true));
    using A = StepGraphAction;
    // Per epoch: the full batch's key warms up, is captured, then replays;
    // the partial batch's warms up in the first epoch and is captured in the second.
    const std::vector<A> expected{A::warm_up, A::capture, A::warm_up,  // epoch 1
                                  A::replay,  A::replay,  A::capture,  // epoch 2
                                  A::replay,  A::replay,  A::replay};  // epoch 3
    if (graphed.actions != expected)
        throw Error("CUDA Graphs: the steps ran as '" + selftest::step_actions_text(graphed.actions) +
                    "', not '" + selftest::step_actions_text(expected) +
                    "' (eager: a capture failed, or the step asked for none)");
    if (std::memcmp(eager.parameters.data(), graphed.parameters.data(),
                    eager.parameters.size() * sizeof(float)) != 0 ||
        eager.loss.loss_sum != graphed.loss.loss_sum || eager.loss.correct != graphed.loss.correct)
        throw Error("CUDA Graphs: 9 LeNet training steps replayed from graphs differ from eager "
                    "ones (deterministic mode: parameters and loss must be bit-identical)");
    return "9 LeNet training steps (" + selftest::step_actions_text(graphed.actions) +
           ") bit-identical to eager in deterministic mode";
}

}  // namespace dp::gpu_checks
