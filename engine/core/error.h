#pragma once

#include <stdexcept>
#include <string>

namespace dp {

// An error a user can act on: its message is one line that names the problem
// and, where it helps, what to do. Front ends print it as is and exit non-zero.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace dp
