#pragma once

// Included by the MPI communicator's implementation only: it holds an MPI
// handle, and no MPI type leaks into the engine's other headers.

#include <mpi.h>

#include <chrono>
#include <vector>

namespace dp {

// Which ranks of an MPI job never reached a collective that timed out, found
// by a roll call among the ranks still waiting in it: a rank whose wait runs
// out calls the roll, telling every other rank "here"; any rank that hears
// the call while it waits answers it the same way; each listens for a short
// grace period, and the ranks not heard from are the missing ones (paused,
// stuck, or still busy elsewhere). The lowest rank that called reports them,
// not one that answered: a paused rank that resumes to find a call waiting
// only answers, so it does not report the others' timeout as its own. The
// messages go over a communicator of their own (MPI_COMM_WORLD duplicated at
// start), so they never mix with the training's, and they are the only ones:
// until a timeout, waiting costs one MPI_Iprobe per poll of a long wait.
class MpiRollCall {
public:
    // Duplicates MPI_COMM_WORLD: collective, every rank constructs one.
    MpiRollCall();
    // Frees the duplicate, unless the roll was called: then the job is ending
    // with collectives still pending, which only MPI_Abort may leave behind.
    ~MpiRollCall();

    MpiRollCall(const MpiRollCall&) = delete;
    MpiRollCall& operator=(const MpiRollCall&) = delete;

    // Whether another rank has called the roll (its message waits here).
    bool called();

    struct Result {
        std::vector<int> missing;  // ranks not heard from, ascending
        // This rank is the lowest that called the roll: the one to report
        // the missing ranks, so that the job prints one line.
        bool reports = false;
    };
    // Calls the roll, or answers it if another rank called first, then
    // listens until `grace` has passed or every rank has been heard. Once per
    // job.
    Result call(std::chrono::steady_clock::duration grace);

private:
    MPI_Comm comm_ = MPI_COMM_NULL;
    int rank_ = 0, size_ = 1;
    bool called_ = false;
};

}  // namespace dp
