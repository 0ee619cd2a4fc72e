#pragma once

#include <functional>

namespace dp {

// What started the ranks of an MPI job: Open MPI's `mpirun` (or another
// mpiexec), or Slurm's `srun` starting them itself through PMIx
// (`srun --mpi=pmix`, no mpirun). The run record names it as its source.
enum class MpiLauncher { mpirun, srun };

// "mpirun" or "srun": the record's source.
const char* mpi_launcher_name(MpiLauncher launcher);

// The launcher, told from the environment the process started with (read
// it before MPI_Init, which may add to it): srun gives each task of a job
// step SLURM_STEP_ID; mpirun gives its ranks OMPI_COMM_WORLD_SIZE, and
// inside a Slurm allocation its ranks inherit the allocation's SLURM_*
// variables (and, on the nodes its daemons reach through srun, their
// step's), so mpirun's variable decides. `variable` looks a name up
// (std::getenv; a test passes its own), nullptr for unset.
MpiLauncher detect_mpi_launcher(const std::function<const char*(const char*)>& variable);

}  // namespace dp
