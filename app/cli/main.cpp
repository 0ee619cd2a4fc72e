// dp-train: trains a model from the command line and prints d2l's summary.
#include <cstdio>
#include <string>
#include <vector>

#include "cli/cli_options.h"
#include "cli/progress_bar.h"
#include "core/error.h"
#include "train/trainer.h"

namespace {

// Prints the run's events: per-epoch lines on stdout, progress and errors on stderr.
class ConsoleObserver final : public dp::TrainObserver {
public:
    explicit ConsoleObserver(int epochs) : epochs_(epochs), progress_(stderr) {}

    void on_log(const std::string& line) override {
        progress_.clear();
        std::printf("%s\n", line.c_str());
        std::fflush(stdout);
    }
    void on_batch(const dp::BatchProgress& progress) override { progress_.update(progress, epochs_); }
    void on_epoch(const dp::EpochMetrics& m) override {
        progress_.clear();
        std::printf("epoch %d/%d: train loss %.4f, train acc %.3f, test acc %.3f, %.1f sec\n",
                    m.epoch, epochs_, m.train_loss, m.train_acc, m.test_acc, m.seconds);
        std::fflush(stdout);
    }
    void on_failed(const std::string& message) override {
        progress_.clear();
        std::fprintf(stderr, "dp-train: %s\n", message.c_str());
    }

private:
    int epochs_;
    dp::ProgressBar progress_;
};

}  // namespace

int main(int argc, char** argv) {
    dp::CliCommand command;
    try {
        command = dp::parse_cli(std::vector<std::string>(argv + 1, argv + argc));
    } catch (const dp::Error& error) {
        std::fprintf(stderr, "dp-train: %s\n", error.what());
        return 2;
    }
    if (command.action == dp::CliCommand::Action::help) {
        std::fputs(dp::cli_help().c_str(), stdout);
        return 0;
    }
    ConsoleObserver observer(command.config.epochs);
    dp::Trainer trainer(command.config);
    return trainer.run(observer) == dp::RunOutcome::failed ? 1 : 0;
}
