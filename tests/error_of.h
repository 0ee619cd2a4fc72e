#pragma once
// The one-line dp::Error message a test expects from an action.

#include <functional>
#include <string>

#include "core/error.h"

// The dp::Error message of `action`, or "" if it succeeds.
inline std::string error_of(const std::function<void()>& action) {
    try {
        action();
    } catch (const dp::Error& error) {
        return error.what();
    }
    return {};
}
