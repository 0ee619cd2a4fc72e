#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "backend/backend.h"

namespace dp::cuda {

// How one cuDNN convolution algorithm rounds: its output for one shape, in
// float32 with FMA math (what an fp32 run gets), against a float64 sample of
// the same pass on the host (ConvReference, conv_accuracy.h: what the kernel
// cache measures). Issue 25 asked whether FFT or
// Winograd is what rounds 10-100x coarser than a direct sum of products;
// this measures every algorithm of every pass, transforms included.
struct ConvAlgorithmError {
    std::string pass;  // "forward", "backward_data", "backward_weights"
    int algorithm = 0;  // cuDNN 9's enum value for the pass
    bool transform = false;  // FFT or Winograd (is_transform_algorithm)
    bool deterministic = false;  // as cuDNN's Find reports it
    bool ran = false;  // cuDNN ran it for this shape within the workspace
    double relative_error = 0;  // ||out - out64|| / ||out64||, when it ran
};

// Every algorithm cuDNN's Find lists for each pass of `shape` on `device`,
// on uniform(-1, 1) inputs from `seed`, within `workspace_bytes`.
std::vector<ConvAlgorithmError> conv_algorithm_errors(int device, const Conv2dShape& shape,
                                                      std::size_t workspace_bytes,
                                                      unsigned seed = 1);

}  // namespace dp::cuda
