#pragma once

#include <string>
#include <vector>

#include "cli/progress_bar.h"
#include "train/train_observer.h"

namespace dp {

// dp-train's view of a run: per-epoch lines on stdout, progress and errors on
// stderr (the engine's runners keep the record). A quiet observer (a rank
// other than 0 of a multi-process run) prints only its failure.
class ConsoleObserver final : public TrainObserver {
public:
    struct Options {
        int epochs = 0;
        bool verbose = false;  // each device's step time breakdown per epoch
        bool quiet = false;
        std::string failure_prefix;  // "rank 2: " in a multi-process run
    };
    explicit ConsoleObserver(Options options);

    void on_log(const std::string& line) override;
    void on_batch(const BatchProgress& progress) override;
    void on_step(const StepReport& report) override;
    void on_epoch(const EpochMetrics& metrics) override;
    void on_finished(const RunSummary& summary) override;
    void on_failed(const std::string& message) override;

    const RunSummary& summary() const { return summary_; }
    const std::string& failure() const { return failure_; }  // empty unless the run failed

private:
    // Mean per step, per device, over the epoch just finished.
    void print_step_breakdown();
    // With --verbose, once: the kernel each op shape ran and its measured
    // error against float64 (backend/kernel_choices.h).
    void print_kernel_choices();

    Options options_;
    ProgressBar progress_;
    std::vector<DeviceStepTiming> step_totals_;
    int steps_ = 0;
    bool kernels_printed_ = false;
    RunSummary summary_;
    std::string failure_;
};

}  // namespace dp
