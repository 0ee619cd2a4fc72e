#include "train/build_info.h"

#include "backend/backend_factory.h"
#include "git_commit.h"  // DP_GIT_COMMIT, written at each build (engine/train/write_git_commit.cmake)

// Set by engine/CMakeLists.txt when the build is configured.
#ifndef DP_VERSION
#define DP_VERSION "unknown"
#endif

namespace dp {

BuildInfo build_info() {
    BuildInfo info;
    info.version = DP_VERSION;
    info.commit = DP_GIT_COMMIT;
    info.backends = backend_versions();
#ifdef DP_HAVE_MPI
    info.mpi = true;
#endif
    return info;
}

}  // namespace dp
