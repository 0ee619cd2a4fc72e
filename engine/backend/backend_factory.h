#pragma once

#include <memory>

#include "backend/backend.h"
#include "devices/device.h"

namespace dp {

// The backend that computes on `device`: oneDNN on a CPU device's cores, the
// CUDA backend on a GPU. Call on the device's worker thread. Here rather than
// in devices/, so that listing and choosing devices needs no backend.
std::unique_ptr<Backend> make_backend(const DeviceInfo& device);

}  // namespace dp
