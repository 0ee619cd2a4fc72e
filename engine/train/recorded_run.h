#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/machine_load.h"
#include "record/run_record_json.h"
#include "record/run_record_sink.h"
#include "train/trainer.h"

namespace dp {

// One run's record through its life, the same in dp-train and the
// workbench: written to every sink when the run starts, after every epoch
// and at its end, so a run that is killed keeps the epochs it completed.
// A sink that holds the run as failed is left so: in an MPI job, a rank that
// fails records the job's end and aborts it, and rank 0, which mpirun then
// sends SIGCONT and SIGTERM, would otherwise record "stopped" over it.
// A sink that cannot be written fails the run (the user asked for the
// record): the constructor and add_epoch throw its dp::Error; finish() does
// not throw, so the run's end is still written to the other sinks.
class RecordedRun {
public:
    RecordedRun(RunRecord record, std::vector<std::unique_ptr<RunRecordSink>> sinks);

    const RunRecord& record() const { return record_; }
    // The user's name for the run, written with the next epoch or the end.
    void set_name(std::string name) { record_.name = std::move(name); }
    // The user's tags and notes, written with the next epoch or the end.
    void set_tags_and_notes(std::vector<std::string> tags, std::string notes) {
        record_.tags = std::move(tags);
        record_.notes = std::move(notes);
    }
    void add_epoch(const EpochMetrics& metrics);
    // One batch's loss, into the record's decimated trace (batch_losses),
    // written with the next epoch or the end.
    void add_batch_loss(const BatchLossPoint& point);
    // The run's step totals (RunSummary::step_totals and steps), written
    // with the next epoch or the end.
    void set_step_totals(const RunSummary& summary);
    // The other processes of the run (the ranks of an MPI job on this
    // machine): their CPU time is the run's, not other load on the machine.
    // The load is measured from this call on.
    void count_as_own(std::vector<std::int64_t> pids);
    // Finished, stopped, or failed with `error`. Returns the first sink's
    // error if the end could not be written, else "".
    std::string finish(RunOutcome outcome, const std::string& error);
    // The rest of the machine's load from the run's start to the last
    // epoch or its end: the one measurement of it a front end quotes.
    const MachineLoad& load() const { return load_; }

private:
    void write();
    // False where `sink` holds this run as failed by another rank and this
    // write is not a failure (the class comment says why).
    bool may_write(const RunRecordSink& sink) const;
    // The machine's load from the run's start until now, into the record.
    void measure_load();

    RunRecord record_;
    BatchLossTrace batch_losses_;  // record_.batch_losses before decimation settles
    CpuClock started_;  // for the machine's load while the run trains
    MachineLoad load_;  // measure_load's last
    std::vector<std::int64_t> own_processes_;  // count_as_own's
    std::vector<std::unique_ptr<RunRecordSink>> sinks_;
};

}  // namespace dp
