// The step_graphs check (gpu_checks.h): CUDA Graphs capture and replay a
// training step's device work with the bits of running it eagerly.

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "backend/cuda/cuda_backend.h"
#include "core/error.h"
#include "models/model_registry.h"
#include "selftest/gpu_checks.h"

namespace dp::gpu_checks {
namespace {

struct GraphRun {
    std::vector<float> parameters;
    std::vector<StepGraphAction> actions;
};

// LeNet's step without its loss: forward, backward from fixed output
// gradients, SGD. It reads nothing back to the host, so it can be captured
// (Replica's step cannot yet: step_graph.h). Five full batches of 64, then
// two last partial batches of 40: two graphs.
GraphRun run_steps(bool graphs) {
    CudaBackendOptions options;
    options.deterministic = true;  // the same cuDNN algorithms in both runs
    options.step_graphs = graphs;
    auto backend = make_cuda_backend(0, options);
    constexpr int kRows = 64, kClasses = 10;
    const SampleShape input{1, 28, 28};
    auto model = build_model("lenet", input, kClasses);
    model->build(*backend, kRows, 1);
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> pixel(0.f, 1.f), gradient(-1e-2f, 1e-2f);
    std::vector<float> host_images(kRows * input.size()), host_dlogits(kRows * kClasses);
    for (float& v : host_images) v = pixel(rng);
    for (float& v : host_dlogits) v = gradient(rng);
    DeviceBuffer images = backend->allocate(host_images.size()),
                 dlogits = backend->allocate(host_dlogits.size());
    backend->upload(host_images.data(), images.get(), host_images.size());
    backend->upload(host_dlogits.data(), dlogits.get(), host_dlogits.size());
    ParameterStore& parameters = model->parameters();
    constexpr float kLr = 0.05f;
    GraphRun run;
    for (int rows : {kRows, kRows, kRows, kRows, kRows, 40, 40, 40}) {
        const Pass pass{.batch = rows, .training = true};
        auto work = [&] {
            model->forward(pass, images.get());
            model->backward(pass, images.get(), dlogits.get());
            backend->sgd_update(parameters.total_size(), kLr, parameters.values(),
                                parameters.gradients());
        };
        const StepGraphRequest request{
            .key = {.rows = rows,
                    .global_batch = rows,
                    .lr_bits = float_bits(kLr),
                    .buffers = {images.get(), dlogits.get(), parameters.values(),
                                parameters.gradients()}},
            .capturable = true};
        run.actions.push_back(backend->run_step(request, work));
    }
    run.parameters.resize(parameters.total_size());
    backend->download(parameters.values(), run.parameters.data(), run.parameters.size());
    return run;
}

std::string actions_text(const std::vector<StepGraphAction>& actions) {
    std::string text;
    for (StepGraphAction action : actions) {
        if (!text.empty()) text += ' ';
        text += step_graph_action_name(action);  // += : GCC 12's -Wrestrict on a + b
    }
    return text;
}

}  // namespace

std::string step_graphs_replay_like_eager() {
    const GraphRun eager = run_steps(false), graphed = run_steps(true);
    const std::vector<StepGraphAction> expected{
        StepGraphAction::warm_up, StepGraphAction::capture, StepGraphAction::replay,
        StepGraphAction::replay,  StepGraphAction::replay,  StepGraphAction::warm_up,
        StepGraphAction::capture, StepGraphAction::replay};
    if (graphed.actions != expected)
        throw Error("CUDA Graphs: the steps ran as '" + actions_text(graphed.actions) +
                    "', not '" + actions_text(expected) + "' (eager: a capture failed)");
    if (std::memcmp(eager.parameters.data(), graphed.parameters.data(),
                    eager.parameters.size() * sizeof(float)) != 0)
        throw Error("CUDA Graphs: 8 LeNet steps replayed from graphs differ from eager ones "
                    "(deterministic mode: they must be bit-identical)");
    return "8 LeNet steps (" + actions_text(graphed.actions) +
           ") bit-identical to eager in deterministic mode";
}

}  // namespace dp::gpu_checks
