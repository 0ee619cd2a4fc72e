#pragma once

#include <string>
#include <vector>

namespace dp {

struct EpochMetrics {
    int epoch = 0;          // 1-based
    double train_loss = 0;  // mean over the epoch's samples
    double train_acc = 0;
    double test_acc = 0;
    double seconds = 0;     // training part only, as d2l's Timer
};

struct BatchProgress {
    int epoch = 0;  // 1-based
    int batch = 0;  // 1-based within the epoch
    int batches_per_epoch = 0;
    double loss = 0;  // mean loss of this batch
};

struct RunSummary {
    std::vector<EpochMetrics> epochs;
    std::vector<std::string> devices;  // e.g. {"cpu:0"}

    double final_test_acc() const;
    double mean_seconds_per_epoch() const;
    // d2l's closing line: "test acc: 0.83, 2.7 sec/epoch on [cpu:0]"
    std::string summary_line() const;
};

// Receives a run's events, on the thread that runs the trainer. Front ends
// forward them (the GUI by queued signals to its own thread).
class TrainObserver {
public:
    virtual ~TrainObserver() = default;
    virtual void on_log(const std::string& /*line*/) {}
    virtual void on_batch(const BatchProgress& /*progress*/) {}
    virtual void on_epoch(const EpochMetrics& /*metrics*/) {}
    // A run that was stopped early still finishes, with the epochs it completed.
    virtual void on_finished(const RunSummary& /*summary*/) {}
    virtual void on_failed(const std::string& /*message*/) {}
};

}  // namespace dp
