#pragma once

#include <cstdlib>
#include <string>

#include "core/error.h"

namespace dp {

// An on/off switch read from the environment (DP_CUDA_TF32, DP_CUDA_STEP_SYNC,
// ...): unset or empty is `if_unset` (off unless said, DP_FUSED_BN_RELU is
// on); 1, true, on and 0, false, off say which; anything else is a dp::Error
// naming the variable.
inline bool env_flag(const char* name, bool if_unset = false) {
    const char* text = std::getenv(name);
    if (!text || !*text) return if_unset;
    const std::string value(text);
    if (value == "1" || value == "true" || value == "on") return true;
    if (value == "0" || value == "false" || value == "off") return false;
    throw Error(std::string(name) + " must be 1 or 0 (got '" + value + "')");
}

}  // namespace dp
