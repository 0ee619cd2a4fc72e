// dp-gpu-selftest: checks the CUDA backend on the GPUs of this machine, then
// times training. Exit codes: 0 all checks passed, 1 a check or a timing run
// failed, 2 bad command line, 77 no CUDA GPU (or driver) found.
//
//   dp-gpu-selftest [--epochs N] [--no-timing]
//
// The checks are engine/selftest's (tests/gpu registers them with CTest as test_gpu_*):
// every op against the CPU reference, NCCL collectives against the host,
// 1-GPU vs N-GPU training, no allocation in the step loop. The timing table
// trains lenet and resnet18 on Fashion-MNIST at batch 256 on cuda:0, then on
// all GPUs with the global batch and learning rate scaled by their count,
// and prints d2l's summary line for each run.
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "devices/device.h"
#include "selftest/gpu_checks.h"
#include "train/trainer.h"

namespace {

class SummaryObserver : public dp::TrainObserver {
public:
    void on_finished(const dp::RunSummary& summary) override { line = summary.summary_line(); }
    void on_failed(const std::string& message) override { line = "FAILED: " + message; }
    std::string line;
};

// One timing run; false if it failed.
bool time_training(const std::string& model, float lr, const std::vector<std::string>& gpus,
                   int epochs) {
    dp::TrainConfig config;
    config.model = model;
    config.devices = gpus;
    config.batch_size = 256 * int(gpus.size());
    config.lr = lr * float(gpus.size());
    config.epochs = epochs;
    SummaryObserver observer;
    const auto outcome = dp::Trainer(config).run(observer);
    std::printf("  %-9s batch %4d, lr %.2f: %s\n", model.c_str(), config.batch_size, config.lr,
                observer.line.c_str());
    std::fflush(stdout);
    return outcome == dp::RunOutcome::finished;
}

}  // namespace

int main(int argc, char** argv) {
    namespace checks = dp::gpu_checks;
    constexpr const char* kUsage = "usage: dp-gpu-selftest [--epochs N] [--no-timing]\n";
    int epochs = 2;
    bool timing = true;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (flag == "--help" || flag == "-h") {
            std::printf("%sChecks the CUDA backend on this machine's GPUs, then times training "
                        "(--epochs N per timing run, default 2; --no-timing: checks only).\n"
                        "Exit codes: 0 passed, 1 a check failed, 2 bad command line, 77 no GPU.\n",
                        kUsage);
            return 0;
        }
        if (flag == "--epochs" && i + 1 < argc) {
            const std::string text = argv[++i];
            const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), epochs);
            if (error != std::errc() || end != text.data() + text.size()) epochs = 0;
        } else if (flag == "--no-timing") {
            timing = false;
        } else {
            std::fprintf(stderr, "%s", kUsage);
            return 2;
        }
    }
    if (epochs < 1) {
        std::fprintf(stderr, "dp-gpu-selftest: --epochs needs a positive whole number\n");
        return 2;
    }

    const auto gpus = checks::gpu_ids();
    if (gpus.empty()) {
        std::printf("dp-gpu-selftest: skipped: no CUDA GPU found\n");
        return checks::kSkipped;
    }
    for (const auto& device : dp::available_devices())
        if (device.kind == dp::DeviceKind::cuda)
            std::printf("%-8s %s\n", device.id.c_str(), device.description.c_str());

    bool passed = true;
    for (const auto& check : checks::all_checks()) {
        try {
            std::printf("PASS %-17s %s\n", check.name, check.run().c_str());
        } catch (const std::exception& error) {
            std::printf("FAIL %-17s %s\n", check.name, error.what());
            passed = false;
        }
        std::fflush(stdout);
    }
    if (timing) {
        std::printf("training time, %d %s each (the first includes cuDNN's algorithm search):\n",
                    epochs, epochs == 1 ? "epoch" : "epochs");
        const std::vector<std::vector<std::string>> device_sets =
            gpus.size() > 1 ? std::vector<std::vector<std::string>>{{gpus[0]}, gpus}
                            : std::vector<std::vector<std::string>>{{gpus[0]}};
        for (const auto& [model, lr] : {std::pair<std::string, float>{"lenet", 0.2f},
                                        std::pair<std::string, float>{"resnet18", 0.1f}})
            for (const auto& devices : device_sets)
                passed = time_training(model, lr, devices, epochs) && passed;
    }
    std::printf("dp-gpu-selftest: %s\n", passed ? "passed" : "FAILED");
    return passed ? 0 : 1;
}
