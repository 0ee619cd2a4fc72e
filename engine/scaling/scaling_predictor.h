#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/train_config.h"
#include "record/run_metrics.h"

namespace dp {

// The what-if predictor: from one measured run and a model of the link
// between devices, the seconds per epoch and speedup of the same training on
// 1..64 devices. Each step is data + forward/backward + all-reduce + update on
// the slowest device, the all-reduce costed in the alpha-beta (Hockney)
// model: a message of m bytes takes alpha + beta * m. What it leaves out is
// listed by prediction_assumptions().

// The all-reduce strategies (config/all_reduce_strategy.h) are the
// predictor's too: naive's and ring's schedules (parallel/collective_schedule.h),
// and nn.DataParallel's step (train/replica_group.h): its gradients summed
// through device 0 as naive's, in one all-reduce, then device 0 alone
// updates and broadcasts the parameters, and every step gathers the outputs
// to device 0 and scatters their gradients back. An earlier MPI record's mpi
// is predicted as the ring it ran.

// Strong scaling keeps the global batch; weak scaling keeps each device's
// batch, so the global batch (and lr, by the linear rule) grows with N.
enum class Scaling { strong, weak };
const char* scaling_name(Scaling scaling);

struct LinkModel {
    std::string name;    // "PCIe 4.0 x16"
    double alpha = 0;    // seconds per message (latency)
    double beta = 0;     // seconds per byte (1 / bandwidth)
    std::string source;  // where the numbers come from
    // > 0: the devices are threads of one process pinned round-robin to this
    // many cores (CPU devices): the strategies' own loops move the bytes, on
    // cores the devices share. 0: every device has its own link (GPUs, nodes).
    int shared_cores = 0;
    // Seconds each all-reduce waits, beyond alpha and beta, for its peers'
    // threads to be scheduled again after computing (allreduce_probe.h): the
    // cost of sharing cores with other work. 0 for the presets.
    double wake = 0;
};

// The links of other machines, each with its source: PCIe 4.0 x16, NVLink 3
// (A100), 10 GbE and 100 GbE (README, "What if: the scaling predictor").
std::vector<LinkModel> link_presets();

// One all-reduce costs wake + latency_terms * alpha + byte_terms * bytes * beta.
struct AllReduceTerms {
    double latency_terms = 0, byte_terms = 0;
};
// What the strategy does on `devices` ranks over `link`; zero on 1 device.
//  - ring (NCCL's): 2(N-1) steps each moving bytes/N, all ranks at once.
//  - naive (d2l's): rank 0 takes in the N-1 other buffers and sends the sum
//    back to each, so its link carries 2(N-1) buffers in 2(N-1) messages.
// On shared cores (threads, this machine) the terms are what the thread
// strategies run: ring meets at 2N-1 barriers and every rank adds and copies
// 2(N-1)/N of the buffer; naive meets at 3 and rank 0 adds N-1 buffers alone
// while the others then copy the sum; work of more ranks than cores takes
// turns (round-robin pinning puts ceil(N/C) ranks on the busiest core).
// DataParallel's is naive's (its probe runs naive's; it reduces, reduce_terms).
AllReduceTerms all_reduce_terms(AllReduceStrategy algorithm, const LinkModel& link, int devices);
// A broadcast from device 0: its link sends N-1 buffers in N-1 messages; on
// shared cores (threads) the other ranks copy it, C at a time, between 2 barriers.
AllReduceTerms broadcast_terms(const LinkModel& link, int devices);
// A reduce to device 0: its link takes in N-1 buffers in N-1 messages; on
// shared cores rank 0 adds them alone between 2 barriers (naive's first step).
AllReduceTerms reduce_terms(const LinkModel& link, int devices);
double all_reduce_seconds(AllReduceStrategy algorithm, const LinkModel& link, int devices,
                          double bytes);
// DataParallel's transfers in one step on `devices` over `link`: its
// gradient sum (a reduce of `parameter_bytes` to device 0, one for all of
// them), the parameter broadcast, the gather of a batch's `output_bytes` (a
// reduce) and the broadcast of their gradients. The two reduces follow
// compute on every device, so they pay the wake-up; each broadcast finds the
// other ranks already waiting for device 0.
double dataparallel_step_seconds(const LinkModel& link, int devices, double parameter_bytes,
                                 double output_bytes);

// This machine's threads as a link: alpha and beta of a probe's fit
// t = fit_alpha + fit_beta * bytes at `devices` ranks
// (parallel/allreduce_probe.h), divided by that strategy's terms there, and
// the probe's wake-up excess.
LinkModel thread_link_from_fit(AllReduceStrategy algorithm, int devices, int cores,
                               double fit_alpha, double fit_beta, double wake = 0);

// How CPU devices share cores. They are pinned round-robin (device i on
// core i mod C), so a core with several devices runs them in turns; and
// cores busy together (vCPUs sharing a physical core's FMA units, memory
// bandwidth, clocks) each run slower: with k of C cores busy, by
// 1 + (busy_slowdown - 1)(k - 1)/(C - 1), busy_slowdown measured.
struct CoreSharing {
    int cores = 0;              // 0: devices share nothing (GPUs, one node each)
    double busy_slowdown = 1;   // a device's time with all cores busy / alone
    std::string source;         // how busy_slowdown was found

    // Seconds until every core has done its work: device_seconds[i] is
    // device i's work alone. Cores that finish early leave the others
    // faster for the rest (3 devices on 2 cores: 1 shared turn, 1 alone).
    double finish_seconds(const std::vector<double>& device_seconds) const;
    // finish_seconds of `devices` equal units of work, over one unit.
    double slowdown(int devices) const;
};

// The measured run, per sample and per step of one device alone.
struct WorkloadProfile {
    std::int64_t samples_per_epoch = 0;
    int global_batch = 0;       // the measured run's
    int measured_devices = 1;   // devices the measured run used
    double compute_per_sample = 0;  // forward + backward seconds
    double data_per_sample = 0;     // gathering and uploading the shard
    double update_per_step = 0;     // every device updates all parameters
    double host_per_step = 0;       // epoch time outside the devices' phases, per step
    double gradient_bytes = 0;
    int buckets = 1;                // all-reduces per step (bucket_mb; 1 for DataParallel)
    // A straggler (--slow-device): on 2 or more devices one of them takes
    // this many times its compute, and the synchronous step waits for it.
    // 1: none. workload_profile takes the run's largest factor.
    double straggler = 1;
};

// From a finished run of `config` (RunSummary::step_totals): its slowest
// device's phases divided by `sharing`'s slowdown at its device count, and
// its all-reduce left out (the link model predicts it). dp::Error without
// finished epochs or step timings.
WorkloadProfile workload_profile(const TrainConfig& config, const RunSummary& run,
                                 const CoreSharing& sharing);

// The same from a run's seconds per epoch alone (a run record without step
// timings): all of a step's time counts as compute per sample, so update
// and host work are assumed to shrink with the shard too. `samples_per_epoch`
// is what the run trained on each epoch. dp::Error without them.
WorkloadProfile workload_profile_from_epochs(const TrainConfig& config, int devices,
                                             double seconds_per_epoch,
                                             std::int64_t samples_per_epoch,
                                             const CoreSharing& sharing);

// Gradient all-reduces per step for `gradient_bytes` of gradients with
// buckets of at most `bucket_mb` (parallel/bucket_plan.h: a first bucket of
// at most 1 MB, then full ones; parameters never split, so a lower bound).
int bucket_count(double gradient_bytes, double bucket_mb);

// busy_slowdown from runs on 1 and on 2..cores devices: each run's compute
// per sample per device over the 1-device runs' median (averaged). Without such a
// run, from runs on a multiple of the cores (each core runs its devices in
// turns, all busy), their slowest device's: a run's own evidence, where a
// probe of the cores on a machine busy with other work read 6.96x. Empty
// source when no run has such a count.
CoreSharing fit_core_sharing(int cores, const std::vector<TrainConfig>& configs,
                             const std::vector<RunSummary>& runs);

// The wake-up (LinkModel::wake) that `run`, on 2 or more devices over this
// machine's threads, paid per all-reduce: its least all-reduce wait per step
// (the device that came last waited only for the collective) beyond what
// `link` costs without wake-up, per bucket, at least 0. What fits the runs'
// own conditions (the load on a shared machine) better than a probe.
double run_wake_seconds(const LinkModel& link, AllReduceStrategy algorithm,
                        const WorkloadProfile& profile, const RunSummary& run);

// The wake-up a multi-device run paid (run_wake_seconds) on its devices.
struct RunWake {
    int devices = 0;
    double seconds = 0;
};
// The wake-up to predict `devices` CPU devices on `cores` cores with: the
// mean of the runs on other device counts, so that no run's own all-reduce
// is fitted to its prediction (with one run in all, its own), and only of
// those on the same side of the core count: with more devices than cores a
// thread waits for a core, not only to wake (on 2 cores, 4 devices paid
// 1.65 ms against 2 devices' few tenths, which made the 2-device
// prediction 29% slow). `runs` 0 when none fits (the probe's stands).
struct FittedWake {
    double seconds = 0;
    int runs = 0;
};
FittedWake wake_from_other_runs(int devices, int cores, const std::vector<RunWake>& runs);

struct PredictionSettings {
    AllReduceStrategy algorithm = AllReduceStrategy::ring;
    LinkModel link;
    CoreSharing sharing;  // applies where link.shared_cores > 0 (this machine's threads)
    Scaling scaling = Scaling::strong;
};

struct PredictedPoint {
    int devices = 0;
    int global_batch = 0;
    double seconds_per_epoch = 0;
    double speedup = 0;  // over the predicted 1-device epoch
    // Per epoch, adding up to seconds_per_epoch. DataParallel's all_reduce
    // holds its parameter broadcast and output gather too, and its update
    // is device 0's alone.
    double compute = 0, all_reduce = 0, update = 0, data_and_host = 0;
    // The straggler term: (straggler - 1) x compute on 2 or more devices,
    // so that a step's compute is its slowest device's.
    double straggler_wait = 0;
};

// A step's wait for a straggler slowed by `factor` (WorkloadProfile::
// straggler) when its devices compute for `compute` seconds: it computes,
// then waits (factor - 1) x compute before the all-reduce, and every
// device waits for it there. 0 on 1 device (the straggler is another
// device, as in dp-train --compare's 1-device run) or at a factor of 1.
double straggler_wait_seconds(double factor, double compute, int devices);

// 1, 2, 4, ..., 64.
std::vector<int> prediction_device_counts();

// Predicted points for each of `device_counts`, in their order.
std::vector<PredictedPoint> predict(const WorkloadProfile& profile,
                                    const PredictionSettings& settings,
                                    const std::vector<int>& device_counts);

// What the model assumes, one sentence a line, for the UI and dp-train.
std::vector<std::string> prediction_assumptions();

}  // namespace dp
