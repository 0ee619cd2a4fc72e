#pragma once

// The training step as a CUDA Graph (DP_CUDA_GRAPHS=1): StepGraphBook
// (backend/step_graph.h) decides, this captures and replays. A capture runs
// none of the step's work, so a step whose capture fails (a host
// synchronisation or an allocation inside it, a library call that cannot be
// captured) runs eagerly right after, and so does every later step of its key.

#include <vector>

#include <cuda_runtime.h>

#include "backend/step_graph.h"

namespace dp::cuda {

class CudaStepGraphs {
public:
    CudaStepGraphs(int device, cudaStream_t stream, bool enabled);
    ~CudaStepGraphs();
    CudaStepGraphs(const CudaStepGraphs&) = delete;
    CudaStepGraphs& operator=(const CudaStepGraphs&) = delete;

    StepGraphAction run(const StepGraphRequest& request, StepWork step);

private:
    // The step's work captured from `stream_` (the calling thread's captures
    // only: other replicas' threads enqueue on their own streams meanwhile)
    // and instantiated; null when the capture or instantiation failed.
    cudaGraphExec_t capture(StepWork step);

    int device_;
    cudaStream_t stream_;
    StepGraphBook book_;
    std::vector<cudaGraphExec_t> graphs_;  // graphs_[i] is the book's graph i
};

}  // namespace dp::cuda
