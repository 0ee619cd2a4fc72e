#pragma once

#include <string>

namespace dp {

// What this build of the engine is, as both front ends show it (dp-train
// --version, the workbench's Help > About): its version, the git commit it
// was built from, the backends built with their libraries' versions,
// and whether multi-process runs (MPI) are.
struct BuildInfo {
    std::string version;  // "1.2.0"
    std::string commit;   // "5e3eefc"; empty when not built from a git checkout
    std::string backends; // "oneDNN 2.7.3 (cpu); CUDA ..."
    bool mpi = false;
};
BuildInfo build_info();

}  // namespace dp
