#include "version_text.h"

#include "backend/backend_factory.h"

// Set by app/CMakeLists.txt when the build is configured.
#ifndef DP_VERSION
#define DP_VERSION "unknown"
#endif
#ifndef DP_GIT_COMMIT
#define DP_GIT_COMMIT ""
#endif

namespace dp {

std::string version_text() {
    const std::string commit = DP_GIT_COMMIT;
    std::string text = "dp-train ";
    text += DP_VERSION;
    if (commit.empty()) {
        text += " (not built from a git checkout)\n";
    } else {
        text += " (git ";
        text += commit;
        text += ")\n";
    }
    text += "backends: " + backend_versions() + "\n";
#ifdef DP_HAVE_MPI
    text += "MPI: built (--distributed, under mpirun)\n";
#else
    text += "MPI: not built (no --distributed)\n";
#endif
    return text;
}

}  // namespace dp
