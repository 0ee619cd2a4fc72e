#include "version_text.h"

#include "train/build_info.h"

namespace dp {

std::string version_text() {
    const BuildInfo build = build_info();
    std::string text = "dp-train " + build.version;
    if (build.commit.empty()) {
        text += " (not built from a git checkout)\n";
    } else {
        text += " (git ";
        text += build.commit;
        text += ")\n";
    }
    text += "backends: " + build.backends + "\n";
    text += build.mpi ? "MPI: built (--distributed, under mpirun)\n"
                      : "MPI: not built (no --distributed)\n";
    return text;
}

}  // namespace dp
