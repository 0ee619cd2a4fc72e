#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include "config/train_config.h"
#include "record/batch_loss_trace.h"
#include "record/run_metrics.h"

namespace dp {

// A run's life: running from its start, then one end. A record its process
// left running (killed, crashed, the machine went down) reads as
// interrupted once that process is gone.
enum class RunStatus { running, finished, stopped, failed, interrupted };

// "running", "finished", ...: the word run records and the history store.
const char* run_status_name(RunStatus status);
// The status a word names; none for an unknown word.
std::optional<RunStatus> parse_run_status(std::string_view name);

// Everything a run leaves behind for comparison later: its configuration,
// where it ran and what each completed epoch measured. dp-train writes it as
// JSON (--record), the workbench keeps it in its history database, and a
// cluster run's record imports into the workbench beside local runs.
struct RunRecord {
    std::string id;          // unique: "<started_at>-<pid>-<run of the process>"
    std::string started_at;  // UTC, ISO 8601: "2026-11-22T01:30:00Z"
    std::string source;      // "dp-train", "dp-workbench", or an MPI job's launcher: "mpirun", "srun"
    // The process that writes the record while the run trains (rank 0's for
    // mpirun) and the machine it runs on (gethostname): what tells a run that
    // another process still trains from one it left running when it died
    // (record/run_process.h). Kept in the history, not in the JSON record (a
    // record file is a snapshot: read_run_record). 0 and "": not known
    // (older histories, imports).
    std::int64_t pid = 0;
    std::string host;
    RunStatus status = RunStatus::running;
    std::string error;       // the one-line message of a failed run
    TrainConfig config;      // as run: devices resolved to ids
    int processes = 1;       // MPI ranks (1: a single process)
    // The "Compare 1 vs N" (or dp-train --compare) this run belongs to: the
    // runs of a group are each other's baseline. Empty for a single run.
    std::string comparison_group;
    // Whether the same settings and seed repeat this run bit for bit: kernels
    // from this machine's cache (not --retune) and, on GPUs, DP_CUDA_DETERMINISTIC.
    bool deterministic = true;
    // The user's name for the run (the workbench's runs table edits it); empty: none.
    std::string name;
    // The user's notes on the run and its tags ("baseline", "lr sweep"), as
    // W&B keeps them: the runs table edits, filters and exports them.
    std::string notes;
    std::vector<std::string> tags;
    std::vector<EpochMetrics> epochs;
    // Each device's step phases summed over the run's steps, and how many
    // steps, as RunSummary has them: what the speedup-gap breakdown
    // (scaling/speedup_gap.h) of a comparison needs. Empty and 0 until the run
    // ends, and in records written before they were kept.
    std::vector<DeviceStepTiming> step_totals;
    std::int64_t steps = 0;
    int step_epochs = 0;  // as RunSummary::step_epochs: 0, all epochs
    // How busy the rest of the machine was while the run trained
    // (core/machine_load.h): the cores other processes kept busy on average,
    // -1 where not measured (older records, no /proc), and whether that was
    // more than a fifth of the cores, which makes the run's times untrusted.
    double other_cores = -1;
    bool busy = false;
    // The cores this process could use where it ran (taskset and cgroups
    // respected); 0 where not known (older records). With the device ids it
    // says which devices took turns on one core.
    int usable_cores = 0;
    // The training loss per batch, decimated (BatchLossTrace: at most about
    // 2,000 points however long the run), so that a run reopened from the
    // history or imported draws its per-batch curve; empty in records
    // written before it was kept, which draw a point per epoch.
    std::vector<BatchLossPoint> batch_losses;

    // The devices the run trained on. config.devices lists every one of
    // them, an mpirun record one per rank (rank 0 gathers them), so this is
    // never multiplied by processes.
    int device_count() const { return int(config.devices.size()); }
    // The distinct cores a CPU run's devices had (4 devices on 2 cores: 2);
    // 0 for GPU runs and where usable_cores is not known.
    int cpu_cores_used() const;

    // Whether the record kept its step timings (records from before they
    // were kept have none).
    bool has_step_timings() const { return steps > 0 && !step_totals.empty() && !epochs.empty(); }
    // What the engine's comparisons, speedup gap and predictor read from a
    // finished run.
    RunSummary summary() const;

    // The run's name in legends, tables and messages: `name` if the user gave
    // one, else settings_label().
    std::string label() const;
    // "ResNet-18 · 2× cpu · b512 · lr 0.2": model, devices, batch, lr, and
    // the precision when not fp32 ("... · lr 0.2 · bf16"), and a straggler
    // ("... · straggler cpu:1 1.5×").
    std::string settings_label() const;
};

// A new record for `config`, stamped with the current time and this process
// (pid, host).
RunRecord start_run_record(const TrainConfig& config, const std::string& source);

// A new id for the runs of one comparison (RunRecord::comparison_group).
std::string new_comparison_group();

// The record's JSON, written and read: record/run_record_json.h.

}  // namespace dp
