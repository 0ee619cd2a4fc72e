#pragma once

namespace dp {

class Trainer;

// The signals that end dp-train, caught so that every way a run can end
// that can be caught leaves its record and history row ended, never
// "running":
// - SIGINT (Ctrl-C), SIGTERM, SIGHUP (the terminal closed, ssh dropped): the
//   first asks the running Trainer to stop after the batch in flight; the
//   run ends "stopped" with its finished epochs in the record, the history
//   and the checkpoint. A second (a signal relayed twice, as `timeout` does,
//   or Ctrl-C pressed again) only cuts short any wait at the end (a history
//   locked by another program). A third ends the program at once, as the
//   signal would, unrecorded.
// - SIGPIPE (the reader of dp-train's output went away: `| head -3`) stops
//   the run as a first Ctrl-C does, once: printing stops, the run's end is
//   recorded, and dp-train exits 141 as a program the signal ended. Later
//   writes to the closed pipe fail quietly.
// A signal ignored when dp-train started (`nohup`'s SIGHUP, a background
// job's SIGINT) stays ignored. Under mpirun, the signals mpirun relays reach
// every rank; the Trainer makes the ranks stop at the same step and rank 0
// records the end.
void catch_interrupting_signals();

// Points the handlers at `trainer` for its lifetime (one at a time); a
// signal that came before (between two runs of a comparison, while loading)
// stops it at once.
class StopOnInterrupt {
public:
    explicit StopOnInterrupt(Trainer& trainer);
    ~StopOnInterrupt();
    StopOnInterrupt(const StopOnInterrupt&) = delete;
    StopOnInterrupt& operator=(const StopOnInterrupt&) = delete;
};

// From now on the signals stop or end dp-train as before but say nothing at
// once: for the ranks of an mpirun job, where a SIGTERM may be mpirun ending
// the job (another rank failed or died), not a stop anyone records.
void silence_interrupt_notices();

// The signal that stopped the run (SIGINT, SIGTERM, SIGHUP, SIGPIPE), 0 if
// none did. dp-train exits with 128 + it, as a shell reports a program the
// signal ended.
int interrupting_signal();
// How dp-train's messages name it: "Ctrl-C", "SIGTERM", ...
const char* interrupting_signal_name();
// True once a signal came after the one that stopped the run: the run's
// end must not wait for anything.
bool hurry_requested();

}  // namespace dp
