#include "lesson_runs.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <string_view>

#include "config/config_fields.h"
#include "core/error.h"
#include "core/format.h"
#include "core/setting_ref.h"
#include "record/run_record.h"
#include "training_time_probe.h"

namespace {

void applySettings(const LessonSettings& settings, dp::TrainConfig& config)
{
    for (const auto& [name, text] : settings) {
        try {
            dp::set_field_text(dp::config_field(name), config, text);
        } catch (const dp::Error& error) {
            // set_field_text leaves naming the setting to its caller.
            std::string message = dp::setting(name);
            message += ": ";
            message += error.what();
            throw dp::SettingError(name, message);
        }
    }
}

// Drift is float rounding only at the same global batch and learning rate
// (scaling/scaling_comparison.h): other runs do other maths.
void measureDriftFromFirst(std::vector<dp::TrainConfig>& configs, const std::string& snapshotDir)
{
    if (snapshotDir.empty() || configs.empty() || configs.front().devices.size() != 1)
        return;
    const dp::TrainConfig& first = configs.front();
    configs.front().snapshot_dir = snapshotDir;
    for (std::size_t i = 1; i < configs.size(); ++i)
        if (configs[i].batch_size == first.batch_size && configs[i].lr == first.lr
            && configs[i].warmup_epochs == first.warmup_epochs)
            configs[i].drift_from = snapshotDir;
}

}  // namespace

std::vector<dp::TrainConfig> lessonConfigs(const Lesson& lesson, const std::vector<dp::DeviceInfo>& devices,
                                           const std::string& dataDir, const std::string& snapshotDir)
{
    std::vector<dp::TrainConfig> configs;
    for (const LessonRun& run : lesson.runs) {
        if (run.devices > int(devices.size())) {
            std::string message = "this lesson needs ";
            message += std::to_string(run.devices);
            message += " devices; this machine has ";
            message += std::to_string(devices.size());
            throw dp::Error(message);
        }
        dp::TrainConfig config;
        config.data_dir = dataDir;
        applySettings(lesson.settings, config);
        applySettings(run.settings, config);
        for (int i = 0; i < run.devices; ++i)
            config.devices.push_back(devices[std::size_t(i)].id);
        if (run.secondDeviceSlowdown > 1 && run.devices >= 2)
            config.slow_devices = {config.devices[1] + "=" + dp::format("%g", run.secondDeviceSlowdown)};
        configs.push_back(std::move(config));
    }
    measureDriftFromFirst(configs, snapshotDir);
    return configs;
}

std::vector<int> lessonComparisons(const Lesson& lesson)
{
    std::vector<int> comparisons;
    int open = -1;
    int opened = 0;
    for (const LessonRun& run : lesson.runs) {
        if (run.devices == 1)
            open = opened++;
        comparisons.push_back(open);
    }
    return comparisons;
}

namespace {

// Per model: seconds per training step, per training image and per test
// image on a shared 2-core machine (load 2-4), start-up included: fitted to
// the lessons' measured times (lesson_table.cpp), LeNet to its 1-vs-2 lesson
// at batch 4 (50 s) and DataParallel vs DDP at batch 16 (57 s), ResNet-18/8
// to its 1-vs-2 lesson at batch 16 (22 s) and batch scaling (44 s); a test
// image taken as a third of a training image (forward only).
struct ModelCost {
    const char* model;
    double stepSeconds;
    double imageSeconds;
};
constexpr ModelCost kModelCosts[] = {
    {"lenet", 0.0068, 0.00035},
    {"resnet18-narrow", 0.027, 0.00092},
};

// The slowest device's factor (TrainConfig::slow_devices "cpu:1=1.5"), 1 for none.
double slowestDevice(const dp::TrainConfig& config)
{
    double slowest = 1;
    for (const std::string& slow : config.slow_devices)
        if (const std::size_t equals = slow.rfind('='); equals != std::string::npos)
            slowest = std::max(slowest, std::strtod(slow.c_str() + equals + 1, nullptr));
    return slowest;
}

}  // namespace

double lessonSecondsOnTwoCores(const std::vector<dp::TrainConfig>& configs)
{
    double seconds = 0;
    for (const dp::TrainConfig& config : configs) {
        const auto cost = std::find_if(std::begin(kModelCosts), std::end(kModelCosts),
                                       [&](const ModelCost& each) { return config.model == each.model; });
        if (cost == std::end(kModelCosts))
            return std::numeric_limits<double>::infinity();
        const ImagesPerEpoch images = imagesPerEpoch(config);
        const double steps = std::ceil(double(images.train) / double(std::max(1, config.batch_size)));
        const double epoch = steps * cost->stepSeconds
                             + (double(images.train) + double(images.test) / 3) * cost->imageSeconds;
        seconds += epoch * config.epochs * slowestDevice(config);
    }
    return seconds;
}

std::string lessonRunName(const LessonRun& run, const dp::TrainConfig& config)
{
    dp::RunRecord record;
    record.config = config;
    std::string name = record.settings_label();
    bool named = false;
    for (const auto& [setting, text] : run.settings) {
        const std::string_view field(setting);
        if (field == "model" || field == "batch_size" || field == "lr" || field == "devices")
            continue;  // in the label already
        const dp::ConfigField& shown = dp::config_field(setting);
        name += " · ";
        name += shown.label;
        name += ' ';
        name += dp::field_text(shown, config);
        named = true;
    }
    return named ? name : std::string();
}
