// dp-train: trains a model from the command line and prints d2l's summary.
#include <cstdio>
#include <string>
#include <vector>

#include "cli/cli_options.h"
#include "cli/progress_bar.h"
#include "core/error.h"
#include "devices/device.h"
#include "train/scaling_comparison.h"
#include "train/trainer.h"

namespace {

// Prints the run's events: per-epoch lines on stdout, progress and errors on stderr.
class ConsoleObserver final : public dp::TrainObserver {
public:
    ConsoleObserver(int epochs, bool verbose)
        : epochs_(epochs), verbose_(verbose), progress_(stderr) {}

    void on_log(const std::string& line) override {
        progress_.clear();
        std::printf("%s\n", line.c_str());
        std::fflush(stdout);
    }
    void on_batch(const dp::BatchProgress& progress) override { progress_.update(progress, epochs_); }
    void on_step(const dp::StepReport& report) override {
        if (!verbose_) return;
        step_totals_.resize(report.devices.size());
        for (std::size_t d = 0; d < report.devices.size(); ++d) {
            auto& total = step_totals_[d];
            const auto& step = report.devices[d];
            total.shard += step.shard;
            total.data += step.data;
            total.forward += step.forward;
            total.backward += step.backward;
            total.allreduce += step.allreduce;
            total.update += step.update;
        }
        ++steps_;
    }
    void on_epoch(const dp::EpochMetrics& m) override {
        progress_.clear();
        std::printf("epoch %d/%d: train loss %.4f, train acc %.3f, test acc %.3f, %.1f sec\n",
                    m.epoch, epochs_, m.train_loss, m.train_acc, m.test_acc, m.seconds);
        print_step_breakdown();
        std::fflush(stdout);
    }
    void on_finished(const dp::RunSummary& summary) override { summary_ = summary; }
    void on_failed(const std::string& message) override {
        progress_.clear();
        std::fprintf(stderr, "dp-train: %s\n", message.c_str());
    }

    const dp::RunSummary& summary() const { return summary_; }

private:
    // Mean per step, per device, over the epoch just finished.
    void print_step_breakdown() {
        if (steps_ == 0) return;
        for (std::size_t d = 0; d < step_totals_.size(); ++d) {
            const auto& t = step_totals_[d];
            const double ms = 1000.0 / steps_;
            std::printf("  device %zu: shard %.0f, data %.2f ms, forward %.2f ms, backward %.2f ms, "
                        "all-reduce %.2f ms, update %.2f ms\n",
                        d, double(t.shard) / steps_, t.data * ms, t.forward * ms,
                        t.backward * ms, t.allreduce * ms, t.update * ms);
        }
        step_totals_.clear();
        steps_ = 0;
    }

    int epochs_;
    bool verbose_;
    dp::ProgressBar progress_;
    std::vector<dp::DeviceStepTiming> step_totals_;
    int steps_ = 0;
    dp::RunSummary summary_;
};

int list_devices() {
    for (const auto& device : dp::available_devices())
        std::printf("%-8s %s\n", device.id.c_str(), device.description.c_str());
    return 0;
}

// Exit code 1 if the run failed; `summary` receives what it measured.
int train(const dp::TrainConfig& config, bool verbose, dp::RunSummary* summary = nullptr) {
    ConsoleObserver observer(config.epochs, verbose);
    const auto outcome = dp::Trainer(config).run(observer);
    if (summary) *summary = observer.summary();
    return outcome == dp::RunOutcome::failed ? 1 : 0;
}

int compare(const dp::CliCommand& command) {
    const auto configs =
        dp::comparison_configs(command.config, command.compare_counts, command.scale_lr);
    std::vector<dp::RunSummary> runs(configs.size());
    for (std::size_t i = 0; i < configs.size(); ++i) {
        std::printf("== run %zu of %zu: %zu device(s), global batch %d, lr %g\n", i + 1,
                    configs.size(), configs[i].devices.size(), configs[i].batch_size,
                    double(configs[i].lr));
        if (const int code = train(configs[i], command.verbose, &runs[i]); code != 0) return code;
    }
    std::printf("\n%s", dp::format_comparison(dp::compare_runs(configs, runs)).c_str());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    dp::CliCommand command;
    try {
        command = dp::parse_cli(std::vector<std::string>(argv + 1, argv + argc));
        switch (command.action) {
        case dp::CliCommand::Action::help:
            std::fputs(dp::cli_help().c_str(), stdout);
            return 0;
        case dp::CliCommand::Action::list_devices:
            return list_devices();
        case dp::CliCommand::Action::compare:
            return compare(command);
        case dp::CliCommand::Action::train:
            // An unknown or absent device is a usage error (exit 2), found
            // before any data is loaded.
            dp::select_devices(command.config.devices);
            return train(command.config, command.verbose);
        }
    } catch (const dp::Error& error) {
        std::fprintf(stderr, "dp-train: %s\n", error.what());
        return 2;
    }
    return 0;
}
