#pragma once

#include <string>

#include "record/run_record.h"

namespace dp {

// This machine's name (gethostname), as records keep it in RunRecord::host.
std::string this_host();

// Where the process that records a run stands, for a record that says
// "running": a record another process writes (dp-train beside the
// workbench, another workbench) reads as running while that process lives,
// and as interrupted once it is gone.
enum class RunProcess {
    alive,      // its pid runs on this machine, started before the run did
    gone,       // no such process here (or its pid now belongs to a later one)
    elsewhere,  // it ran on another machine: this one cannot tell
    unknown,    // the record names no process (older histories, imports)
};

// Looks the record's pid up on this machine. A process whose pid was reused
// is told apart by its start time: the run's process started before
// record.started_at, a later owner of the pid after the run's process died.
RunProcess run_process(const RunRecord& record);

}  // namespace dp
