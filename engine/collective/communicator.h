#pragma once

// The collective interface, below nn/ and parallel/: layers take a
// Communicator (synchronized BatchNorm) and parallel/ implements it, so
// neither includes the other. It knows no devices: buffers are pointers the
// implementation knows how to reach (host memory for threads and MPI, device
// memory for NCCL). The implementations and their factories are in parallel/.

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"

namespace dp {

// What a collective throws once its communicator was aborted because another
// rank failed: a consequence, so callers report the other rank's error first.
class CollectiveAborted : public Error {
public:
    using Error::Error;
};

// Where a run is when its ranks meet, for the message of a collective that
// times out: "of step" 37 reads "the all-reduce of step 37". The text is a
// literal, so that setting a phase every step allocates nothing.
struct CollectivePhase {
    const char* text = "";
    std::uint64_t step = 0;  // appended to the text unless 0
};

// Collectives over float buffers among `size()` ranks. Each rank calls each
// collective with its own buffer of the same length, in the same order.
// Implementations (parallel/): ranks as threads of one process, NCCL, MPI.
// None waits without limit: a rank kept waiting for the others longer than
// the communicator's timeout (parallel/collective_timeout.h) throws dp::Error
// naming the ranks that did not arrive, where the implementation can tell.
class Communicator {
public:
    virtual ~Communicator() = default;
    virtual std::string name() const = 0;  // "naive", "ring"
    virtual int size() const = 0;
    // On return every rank's buffer holds the elementwise sum over ranks.
    virtual void all_reduce_sum(int rank, float* data, std::size_t count) = 0;
    // The same sum, possibly still running on return: the buffer holds it
    // once wait_all(rank) has returned, and must not be touched before. How
    // a device reduces a bucket while backward computes the next one (a
    // GPU's communication stream; a CPU device's communication thread,
    // parallel/overlapping_communicator.h). Here it is all_reduce_sum.
    virtual void start_all_reduce_sum(int rank, float* data, std::size_t count) {
        all_reduce_sum(rank, data, count);
    }
    // Returns once every collective this rank started has completed, with the
    // device's later work ordered after them.
    virtual void wait_all(int /*rank*/) {}
    // On return every rank's buffer holds root's.
    virtual void broadcast(int rank, float* data, std::size_t count, int root) = 0;
    // On return root's buffer holds the elementwise sum over ranks; the
    // others' hold their own or the sum. nn.DataParallel's gathers to device
    // 0, half of naive's traffic. Here all_reduce_sum, which has it too (the
    // thread communicators send only the half; NCCL's, MPI's and the GPU
    // replicas' still all-reduce).
    virtual void reduce_sum(int rank, float* data, std::size_t count, int root) {
        (void)root;
        all_reduce_sum(rank, data, count);
    }
    // For a rank that failed: wakes every rank blocked in a collective, which
    // then throws CollectiveAborted("collective aborted: ..."), as does every later
    // collective. The communicator stays unusable afterwards. Safe to call from
    // any thread, any number of times.
    virtual void abort() = 0;

    // What the ranks' next collectives are part of, for their timeout
    // messages only. Set between collectives (by the thread that starts the
    // ranks' work), never while one runs. Virtual for a communicator that
    // wraps another, which passes the phase on.
    virtual void set_phase(CollectivePhase phase) { phase_ = phase; }
    const CollectivePhase& phase() const { return phase_; }

private:
    CollectivePhase phase_;
};

}  // namespace dp
