#pragma once

#include <string>

namespace dp {

// What `dp-train --version` prints: the version and the git commit it was
// built from, the backends built with their libraries' versions, and
// whether --distributed (MPI) is.
std::string version_text();

}  // namespace dp
