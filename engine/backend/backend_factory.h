#pragma once

#include <memory>
#include <string>

#include "backend/backend.h"
#include "backend/precision.h"
#include "devices/device.h"

namespace dp {

// The backend that computes on `device` in `precision`: oneDNN on a CPU
// device's cores, the CUDA backend on a GPU. Call on the device's worker
// thread. Here rather than in devices/, so that listing and choosing devices
// needs no backend. Throws dp::Error when the device cannot compute in
// `precision` (precision_refusal says why).
std::unique_ptr<Backend> make_backend(const DeviceInfo& device,
                                      Precision precision = Precision::fp32);

// The backends this build has and their libraries' versions, one line:
// "oneDNN 2.6.3 (avx2); CUDA 13.0, cuDNN 9.19.0, NCCL 2.28.3" (dp-train --version).
std::string backend_versions();

// Empty when `device` can compute in `precision`, else the one-line reason
// and what to choose instead, naming the setting as setting("precision").
std::string precision_refusal(const DeviceInfo& device, Precision precision);

}  // namespace dp
