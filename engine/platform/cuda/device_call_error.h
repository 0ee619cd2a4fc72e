#pragma once

#include <string>

namespace dp {

// The message of a failed GPU library call or kernel launch: the function
// called (the call expression up to its argument list), where, on which
// device, and the library's own words, e.g. "cudnnConvolutionForward failed
// on cuda:1 (engine/backend/cuda/cudnn_convolution.cpp:42):
// CUDNN_STATUS_BAD_PARAM". cuda_device < 0: a call before any device was
// chosen. Host-side so that its wording is tested on the CPU.
inline std::string device_call_error(const std::string& call_expression, const std::string& file,
                                     int line, int cuda_device, const std::string& status) {
    const std::string function = call_expression.substr(0, call_expression.find('('));
    const auto project_path = file.rfind("engine/");
    const std::string where = project_path == std::string::npos ? file : file.substr(project_path);
    const std::string device =
        cuda_device < 0 ? "no device" : "cuda:" + std::to_string(cuda_device);
    return function + " failed on " + device + " (" + where + ":" + std::to_string(line) +
           "): " + status;
}

}  // namespace dp
