#pragma once

namespace dp {

class Trainer;

// Ctrl-C (SIGINT) and SIGTERM while dp-train trains: the first asks the
// running Trainer to stop after the batch in flight, so the run ends as
// "stopped" with its finished epochs in the record, the history and the
// checkpoint; a second one ends the program at once, as the signal would.
// One at a time, for the Trainer's lifetime.
class StopOnInterrupt {
public:
    explicit StopOnInterrupt(Trainer& trainer);
    ~StopOnInterrupt();
    StopOnInterrupt(const StopOnInterrupt&) = delete;
    StopOnInterrupt& operator=(const StopOnInterrupt&) = delete;
};

// The signal that stopped a run (SIGINT, SIGTERM), 0 if none did. dp-train
// exits with 128 + it, as a shell reports a program the signal ended.
int interrupting_signal();

}  // namespace dp
