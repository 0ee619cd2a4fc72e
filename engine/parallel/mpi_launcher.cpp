#include "parallel/mpi_launcher.h"

namespace dp {

const char* mpi_launcher_name(MpiLauncher launcher) {
    return launcher == MpiLauncher::srun ? "srun" : "mpirun";
}

MpiLauncher detect_mpi_launcher(const std::function<const char*(const char*)>& variable) {
    if (variable("OMPI_COMM_WORLD_SIZE")) return MpiLauncher::mpirun;
    return variable("SLURM_STEP_ID") ? MpiLauncher::srun : MpiLauncher::mpirun;
}

}  // namespace dp
