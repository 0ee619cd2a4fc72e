#include "lesson_starter.h"

#include <QCoreApplication>
#include <QStringList>

#include <algorithm>
#include <utility>

#include "core/error.h"
#include "config/device_choice.h"
#include "engine_message.h"
#include "lesson_banner.h"
#include "lesson_result_note.h"
#include "lesson_runs.h"
#include "lesson_table.h"
#include "run_config_panel.h"
#include "run_manager.h"

namespace {

// The run manager adds its own outputs (trace, preview) to a run's
// settings: a run is the lesson's when the settings every device shares
// and its devices are.
bool sameRun(const dp::TrainConfig& queued, const dp::TrainConfig& started)
{
    return queued.devices == started.devices && dp::shared_settings(queued) == dp::shared_settings(started);
}

}  // namespace

LessonStarter::LessonStarter(RunConfigPanel* panel, RunManager* runs, LessonBanner* banner, QObject* parent)
    : QObject(parent), panel_(panel), runs_(runs), banner_(banner)
{
    connect(runs_, &RunManager::runStarted, this, &LessonStarter::followRunStarted);
    connect(runs_, &RunManager::runEnded, this, &LessonStarter::followRunEnded);
    // Stop drops the queue: the lessons' runs that waited will not start.
    connect(runs_->queue(), &QAbstractItemModel::modelReset, this, [this] { waiting_.clear(); });
}

QString LessonStarter::start(const QString& name)
{
    const Lesson* lesson = findLesson(name.toStdString());
    if (!lesson) {
        QStringList known;
        for (const Lesson& each : lessons())
            known << QString::fromLatin1(each.name);
        return tr("no lesson is named %1 (the lessons: %2)").arg(name, known.join(QStringLiteral(", ")));
    }
    std::vector<dp::TrainConfig> configs;
    auto snapshots = std::make_unique<QTemporaryDir>();
    try {
        const std::string dataDir = panel_->dataFolders().value(QStringLiteral("fashion-mnist")).toStdString();
        configs = lessonConfigs(*lesson, dp::select_devices({}), dataDir,
                                snapshots->isValid() ? snapshots->path().toStdString() : std::string());
        for (const dp::TrainConfig& config : configs)
            dp::validate(config);
    } catch (const dp::Error& error) {
        return engineMessage(error.what());
    }
    snapshots_.push_back(std::move(snapshots));
    // Before the runs start: the first one's start shows the banner's lesson.
    banner_->showLesson(QCoreApplication::translate("Lessons", lesson->title),
                        QCoreApplication::translate("Lessons", lesson->lookFor));
    // Kept before the panel changes: the window saves no lesson's settings as the user's.
    if (!userSettings_)
        userSettings_ = panel_->config();
    // Without the snapshots: a run the user starts next measures no drift.
    dp::TrainConfig shown = configs.back();
    shown.snapshot_dir.clear();
    shown.drift_from.clear();
    panel_->setConfig(shown);
    queue(*lesson, configs);
    return {};
}

void LessonStarter::queue(const Lesson& lesson, const std::vector<dp::TrainConfig>& configs)
{
    const std::vector<int> comparisons = lessonComparisons(lesson);
    std::vector<std::string> groups;  // by comparison, numbered in run order from 0
    for (const int comparison : comparisons)
        if (comparison >= int(groups.size()))
            groups.push_back(dp::new_comparison_group());
    for (const dp::TrainConfig& config : configs)
        waiting_.push_back({config, &lesson});
    for (std::size_t i = 0; i < configs.size(); ++i)
        runs_->enqueue(configs[i], comparisons[i] < 0 ? std::string() : groups[std::size_t(comparisons[i])],
                       lessonRunName(lesson.runs[i], configs[i]));
}

void LessonStarter::followRunStarted(const dp::RunRecord& record)
{
    const auto queued = std::find_if(waiting_.begin(), waiting_.end(),
                                     [&](const WaitingRun& run) { return sameRun(run.config, record.config); });
    if (queued != waiting_.end()) {
        running_ = queued->lesson;
        waiting_.erase(queued);
    } else {
        running_ = nullptr;
        banner_->hide();
    }
}

void LessonStarter::followRunEnded(const dp::RunRecord& record)
{
    if (const Lesson* lesson = std::exchange(running_, nullptr)) {
        ended_.push_back(record);
        if (record.status != dp::RunStatus::finished) {
            ended_.clear();  // a lesson cut short shows nothing to check
        } else if (ended_.size() == lesson->runs.size()) {
            if (const QString note = lessonResultNote(*lesson, ended_); !note.isEmpty())
                banner_->showNote(note);
            ended_.clear();
        }
    }
    if (waiting_.empty() && holdsSettings())
        giveSettingsBack();
}

void LessonStarter::giveSettingsBack()
{
    const dp::TrainConfig user = *std::exchange(userSettings_, std::nullopt);
    panel_->setConfig(user);
}
