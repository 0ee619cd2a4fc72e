#pragma once

#include <exception>
#include <string>

namespace dp {

// The one line a front end prints for an exception, whatever threw it: a
// dp::Error's message as it is; the standard library's own texts
// ("std::bad_alloc", "vector::_M_default_append") are not for users, so they
// are worded as the problem and what to do about it. Every front end's
// outermost catch and the Trainer's use this, so no raw C++ text reaches a user.
std::string exception_message(const std::exception& error);

// The same for the exception being handled (in a catch (...) block).
std::string current_exception_message();

}  // namespace dp
