#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "parallel/mpi_launcher.h"

namespace dp {

// This process's place in an MPI job (one rank of `mpirun -np N`): MPI is
// initialized for as long as the session lives. MPI is called from one thread
// at a time but not always the same one (the main thread here, a device
// thread in the collectives), so the session asks for MPI_THREAD_SERIALIZED.
// Only mpi.h's C API is used; no MPI types leak into this header.
class MpiSession {
public:
    // MPI_Init_thread, after reading which launcher started this rank. Throws dp::Error if MPI cannot give serialized calls
    // from several threads.
    MpiSession(int& argc, char**& argv);
    // MPI_Finalize.
    ~MpiSession();

    MpiSession(const MpiSession&) = delete;
    MpiSession& operator=(const MpiSession&) = delete;

    int rank() const { return rank_; }    // in MPI_COMM_WORLD
    int size() const { return size_; }    // ranks in the job
    // This rank's index among the ranks on its machine (MPI_COMM_TYPE_SHARED):
    // which GPU or core it takes.
    int local_rank() const { return local_rank_; }
    // What started the job's ranks (mpirun or srun), as this process was started.
    MpiLauncher launcher() const { return launcher_; }
    // The machine this rank runs on, as MPI names it (MPI_Get_processor_name).
    std::string processor_name() const;

    // Root's `bytes` bytes at `data` on every rank (MPI_Bcast).
    void broadcast_bytes(void* data, std::size_t bytes, int root) const;
    // Root's text on every rank.
    std::string broadcast(const std::string& text, int root) const;
    // Every rank's text, in rank order, on every rank.
    std::vector<std::string> all_gather(const std::string& text) const;

    // MPI_Barrier: returns once every rank has called it.
    void barrier() const;

    // MPI_Abort on MPI_COMM_WORLD: mpirun ends every rank of the job.
    [[noreturn]] void abort(int exit_code) const;

private:
    MpiLauncher launcher_ = MpiLauncher::mpirun;
    int rank_ = 0, size_ = 1, local_rank_ = 0;
};

}  // namespace dp
