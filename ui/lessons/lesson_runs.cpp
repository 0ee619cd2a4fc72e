#include "lesson_runs.h"

#include <string_view>

#include "config/config_fields.h"
#include "core/error.h"
#include "core/format.h"
#include "core/setting_ref.h"
#include "record/run_record.h"

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
