#pragma once

#include <string>

namespace dp {

// The CPU's marketing name from /proc/cpuinfo ("AMD EPYC", "Intel(R) Xeon(R)
// Platinum 8480+"), or "CPU" when the kernel does not say.
std::string cpu_model_name();

}  // namespace dp
