#include "selftest/training_checks.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "core/error.h"
#include "data/epoch_sampler.h"
#include "devices/device.h"
#include "train/parameter_drift.h"
#include "train/replica_group.h"

namespace dp::selftest {
namespace {

constexpr SampleShape kInput{1, 28, 28};
constexpr int kClasses = 10;

std::string format_difference(double difference) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1e", difference);
    return text;
}

std::string joined(const std::vector<std::string>& devices) {
    std::string text;
    for (const std::string& device : devices) text += (text.empty() ? "" : ",") + device;
    return text;
}

// The training set's indices in file order. A vector the caller keeps: a
// span from a temporary EpochSampler dangles, and its garbage indices were
// the self-test's first failure on a GPU.
std::vector<int> file_order(const Dataset& set) {
    EpochSampler sampler(set.count, 0, false);
    const auto order = sampler.order(0);
    return {order.begin(), order.end()};
}

// Notes what each step's Backend::run_step answered.
class StepActionLog final : public ForwardingBackend {
public:
    StepActionLog(std::unique_ptr<Backend> inner, std::vector<StepGraphAction>& actions)
        : ForwardingBackend(std::move(inner)), actions_(actions) {}
    StepGraphAction run_step(const StepGraphRequest& request, StepWork step) override {
        const StepGraphAction action = ForwardingBackend::run_step(request, step);
        actions_.push_back(action);
        return action;
    }

private:
    std::vector<StepGraphAction>& actions_;
};

void check_enough_batches(const Dataset& set, int steps) {
    if (std::size_t(steps) * kBatch > std::size_t(set.count))
        throw Error("the self-test's training subset has " + std::to_string(set.count) +
                    " images, fewer than " + std::to_string(steps) + " batches of " +
                    std::to_string(kBatch));
}

}  // namespace

TrainTestSets training_subset() {
    const auto dir = default_fashion_mnist_dir();
    if (!std::filesystem::exists(dir))
        throw Error("Fashion-MNIST not found at " + dir.string() +
                    ": run scripts/setup or set DP_DATA_DIR");
    return load_mnist_format(dir, kBatch * 20, 512);
}

TrainConfig lenet_config(std::vector<std::string> devices) {
    TrainConfig config;
    config.model = "lenet";
    config.batch_size = kBatch;
    config.lr = 0.2f;
    config.devices = std::move(devices);
    config.bucket_mb = 0.1;  // several buckets even for LeNet
    return config;
}

std::vector<float> train_lenet(const std::vector<std::string>& devices, const TrainTestSets& data,
                               int steps) {
    check_enough_batches(data.train, steps);
    const TrainConfig config = lenet_config(devices);
    ReplicaGroup group(select_devices(config.devices), config, kInput, kClasses);
    const std::vector<int> order = file_order(data.train);
    for (int step = 0; step < steps; ++step) {
        Backend::LossResult loss;
        group.train_step(data.train, std::span(order).subspan(std::size_t(step) * kBatch, kBatch),
                         config.lr, loss);
        const std::vector<float> first = group.parameters(0);
        for (int rank = 1; rank < group.size(); ++rank)
            if (group.parameters(rank) != first)
                throw Error("on " + joined(devices) + ", replica " + std::to_string(rank) +
                            " differs from replica 0 after step " + std::to_string(step));
    }
    return group.parameters(0);
}

std::string training_matches(const std::vector<std::string>& reference,
                             const std::vector<std::string>& devices, const TrainTestSets& data,
                             int steps, double tolerance) {
    const auto expected = train_lenet(reference, data, steps);
    const auto actual = train_lenet(devices, data, steps);
    const double difference = max_relative_difference(actual, expected);
    const std::string what = "LeNet, " + std::to_string(steps) + " steps: " + joined(devices) +
                             " vs " + joined(reference) + " " + format_difference(difference);
    if (!(difference <= tolerance))
        throw Error(what + ", more than " + format_difference(tolerance));
    return what;
}

std::string steps_allocate_nothing(const std::vector<std::string>& devices,
                                   const TrainTestSets& data, const MemoryProbe& probe) {
    constexpr int steps = 11;
    check_enough_batches(data.train, steps);
    const TrainConfig config = lenet_config(devices);
    ReplicaGroup group(select_devices(config.devices), config, kInput, kClasses);
    const std::vector<int> order = file_order(data.train);
    auto step = [&](int index) {
        Backend::LossResult loss;
        group.train_step(data.train, std::span(order).subspan(std::size_t(index) * kBatch, kBatch),
                         config.lr, loss);
    };
    step(0);  // the first step of a shape picks its kernels (in the workspace)
    const auto before = probe();
    for (int index = 1; index < steps; ++index) step(index);
    const auto after = probe();
    for (std::size_t i = 0; i < before.size() && i < after.size(); ++i)
        if (after[i] != before[i])
            throw Error("device memory changed during " + std::to_string(steps - 1) +
                        " training steps on " + joined(devices) + " (probe " + std::to_string(i) +
                        ": " + std::to_string(before[i]) + " before, " +
                        std::to_string(after[i]) + " after): something allocated");
    return std::to_string(steps - 1) + " LeNet steps on " + joined(devices) + " allocated nothing";
}

StepActionsRun train_lenet_resident(const std::string& device, const TrainTestSets& data,
                                    int samples, int epochs, const BackendWrapper& backend) {
    if (samples > data.train.count)
        throw Error("the self-test's training subset has " + std::to_string(data.train.count) +
                    " images, fewer than " + std::to_string(samples));
    Dataset set = data.train;
    set.count = samples;
    set.images.resize(std::size_t(samples) * set.sample_size());
    set.labels.resize(std::size_t(samples));
    StepActionsRun run;
    const BackendWrapper logged = [&](std::unique_ptr<Backend> made, int local) {
        std::unique_ptr<Backend> used = backend ? backend(std::move(made), local) : std::move(made);
        return std::unique_ptr<Backend>(std::make_unique<StepActionLog>(std::move(used), run.actions));
    };
    const TrainConfig config = lenet_config({device});
    ReplicaGroup group(select_devices(config.devices), config, kInput, kClasses, logged);
    const std::vector<int> order = file_order(set);
    for (int epoch = 0; epoch < epochs; ++epoch) {
        const std::span<const int> resident = group.start_epoch(set, order);
        for (int first = 0; first < samples; first += kBatch)
            group.train_step(set, resident.subspan(std::size_t(first),
                                                   std::size_t(std::min(kBatch, samples - first))),
                             config.lr);
    }
    run.loss = group.take_loss();
    run.parameters = group.parameters(0);
    return run;
}

std::string step_actions_text(const std::vector<StepGraphAction>& actions) {
    std::string text;
    for (StepGraphAction action : actions) {
        if (!text.empty()) text += ' ';
        text += step_graph_action_name(action);  // += : GCC 12's -Wrestrict on a + b
    }
    return text;
}

}  // namespace dp::selftest
