#include "lesson_starter.h"

#include <QCoreApplication>
#include <QStringList>

#include <algorithm>

#include "core/error.h"
#include "devices/device.h"
#include "engine_message.h"
#include "lesson_banner.h"
#include "lesson_runs.h"
#include "lesson_table.h"
#include "record/run_record.h"
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
    // Without the snapshots: a run the user starts next measures no drift.
    dp::TrainConfig shown = configs.back();
    shown.snapshot_dir.clear();
    shown.drift_from.clear();
    panel_->setConfig(shown);
    const std::string group = comparesDeviceCounts(*lesson) ? dp::new_comparison_group() : std::string();
    waiting_.insert(waiting_.end(), configs.begin(), configs.end());
    for (const dp::TrainConfig& config : configs)
        runs_->enqueue(config, group);
    return {};
}

void LessonStarter::followRunStarted(const dp::RunRecord& record)
{
    const auto queued = std::find_if(waiting_.begin(), waiting_.end(),
                                     [&](const dp::TrainConfig& config) { return sameRun(config, record.config); });
    if (queued != waiting_.end())
        waiting_.erase(queued);
    else
        banner_->hide();
}
