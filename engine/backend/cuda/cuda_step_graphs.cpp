#include "backend/cuda/cuda_step_graphs.h"

#include <exception>

#include "platform/cuda/cuda_check.h"

namespace dp::cuda {

CudaStepGraphs::CudaStepGraphs(int device, cudaStream_t stream, bool enabled)
    : device_(device), stream_(stream), book_(enabled) {}

CudaStepGraphs::~CudaStepGraphs() {
    for (cudaGraphExec_t graph : graphs_) cudaGraphExecDestroy(graph);
}

StepGraphAction CudaStepGraphs::run(const StepGraphRequest& request, StepWork step) {
    const StepGraphAction action = book_.decide(request);
    switch (action) {
        case StepGraphAction::eager:
        case StepGraphAction::warm_up:
            step();
            return action;
        case StepGraphAction::replay:
            DP_CUDA_CHECK(device_, cudaGraphLaunch(graphs_[book_.graph_index()], stream_));
            return action;
        case StepGraphAction::capture:
            break;
    }
    cudaGraphExec_t graph = capture(step);
    book_.captured(request.key, graph != nullptr);
    if (!graph) {
        step();  // the capture ran nothing
        return StepGraphAction::eager;
    }
    graphs_.push_back(graph);
    DP_CUDA_CHECK(device_, cudaGraphLaunch(graph, stream_));
    return StepGraphAction::capture;
}

cudaGraphExec_t CudaStepGraphs::capture(StepWork step) {
    DP_CUDA_CHECK(device_, cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    bool enqueued = true;
    try {
        step();
    } catch (const std::exception&) {
        // An illegal call invalidated the capture (its check threw), or the
        // step failed: either way the eager run that follows says which.
        enqueued = false;
    }
    cudaGraph_t captured = nullptr;
    const cudaError_t ended = cudaStreamEndCapture(stream_, &captured);
    cudaGraphExec_t graph = nullptr;
    if (enqueued && ended == cudaSuccess && captured &&
        cudaGraphInstantiate(&graph, captured, 0) != cudaSuccess)
        graph = nullptr;
    if (captured) cudaGraphDestroy(captured);
    cudaGetLastError();  // a failed capture's error is answered by the eager run, not kept
    return graph;
}

}  // namespace dp::cuda
