#pragma once

#include <string>

#include "cli/cli_options.h"

namespace dp {

// dp-train --distributed: this process is one rank of an mpirun job. MPI
// starts here (and only for such a run); the engine runs the rank's whole
// life cycle (study/rank_runner.h): every rank given the same settings, one
// device each, the rank's share of every global batch; only rank 0 prints,
// saves checkpoints and keeps the record. A rank that fails prints
// "dp-train: rank R: <message>", writes the run's end as failed (rank 0 may
// be stopped or about to be killed) and aborts the job, so every rank exits
// non-zero. Returns the exit code (0, 2 for settings that no rank can run,
// 128 + the signal, or 1, for a run a signal stopped).
int train_distributed(const CliCommand& command, int& argc, char**& argv);

// dp-train --distributed with a command line that could not be read
// (`message`): one line for the job, as every rank gets the same command
// line. Rank 0 prints "dp-train: <message>" and the others end quietly; a
// rank whose own command line alone is wrong prints "dp-train: rank R:
// <message>" and ends the job. Returns 2.
int report_unreadable_command_line(const std::string& message, int& argc, char**& argv);

}  // namespace dp
