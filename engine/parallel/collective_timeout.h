#pragma once

#include <chrono>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "collective/communicator.h"

namespace dp {

// How long a rank waits in one collective for the others, and how the
// message of a collective that times out names the ranks. Every communicator
// takes one (threads, MPI, NCCL), so that all of them fail alike.
struct CollectiveTimeout {
    // Generous: a ResNet-18 step on a slow CPU takes seconds, the first step
    // also measures kernels, and rank 0 writes records and checkpoints while
    // the others already wait in the next step's all-reduce.
    static constexpr double default_seconds = 600;

    double seconds = default_seconds;
    // How messages name rank r: "cpu:1", "rank 2 (node2, cpu:0)"; "rank r"
    // for a rank beyond the list.
    std::vector<std::string> rank_names;

    std::chrono::steady_clock::duration limit() const;
    std::string rank_name(int rank) const;

    // The one-line message of a collective that timed out, for the ranks in
    // `missing` (ascending) that never reached it: "cpu:1 did not reach the
    // all-reduce of step 37 within 600 s: it may be paused, swapping or
    // stuck; raise {collective_timeout_s} if its steps are that slow". With
    // no missing rank (every rank came, yet it did not complete), it says so.
    std::string message(std::span<const int> missing, std::string_view collective,
                        const CollectivePhase& phase) const;
};

}  // namespace dp
