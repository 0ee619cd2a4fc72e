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

LessonStarter::LessonStarter(RunConfigPanel* panel, RunManager* runs, LessonBanner* banner, QObject* parent)
    : QObject(parent), panel_(panel), runs_(runs), banner_(banner)
{
    // The banner stays for a lesson's runs only.
    connect(runs_, &RunManager::studyStarted, this, [this](int study) {
        if (queuing_)
            lessonOfStudy_[study] = queuing_;  // it starts as it is queued, the window idle
        if (!lessonOfStudy_.contains(study))
            banner_->hide();
    });
    connect(runs_, &RunManager::runStarted, this, &LessonStarter::followRunStarted);
    connect(runs_, &RunManager::runEnded, this, &LessonStarter::followRunEnded);
    // Stop drops the queue: the lessons queued behind the one in flight will not start.
    connect(runs_->queue(), &QAbstractItemModel::modelReset, this, [this] {
        std::erase_if(lessonOfStudy_, [this](const auto& entry) { return entry.first != runs_->runningStudy(); });
    });
    connect(runs_, &RunManager::studyEnded, this, &LessonStarter::followStudyEnded);
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
    dp::StudyPlan plan;
    auto snapshots = std::make_unique<QTemporaryDir>();
    try {
        const std::string dataDir = panel_->dataFolders().value(QStringLiteral("fashion-mnist")).toStdString();
        configs = lessonConfigs(*lesson, dp::select_devices({}), dataDir,
                                snapshots->isValid() ? snapshots->path().toStdString() : std::string());
        plan = lessonPlan(*lesson, configs);  // every run's settings checked
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
    queuing_ = lesson;
    lessonOfStudy_[runs_->enqueue(std::move(plan))] = lesson;
    queuing_ = nullptr;
    return {};
}

dp::StudyPlan LessonStarter::lessonPlan(const Lesson& lesson, const std::vector<dp::TrainConfig>& configs)
{
    const std::vector<int> comparisons = lessonComparisons(lesson);
    std::vector<std::string> groups;  // by comparison, numbered in run order from 0
    for (const int comparison : comparisons)
        if (comparison >= int(groups.size()))
            groups.push_back(dp::new_comparison_group());
    std::vector<dp::RequestedRun> runs;
    for (std::size_t i = 0; i < configs.size(); ++i)
        runs.push_back({configs[i], comparisons[i] < 0 ? std::string() : groups[std::size_t(comparisons[i])],
                        lessonRunName(lesson.runs[i], configs[i])});
    // One study: a run that fails or is stopped ends the lesson.
    return dp::lesson_plan(runs);
}

void LessonStarter::followRunStarted(const dp::RunRecord& /*record*/)
{
    const auto lesson = lessonOfStudy_.find(runs_->runningStudy().value_or(0));
    running_ = lesson != lessonOfStudy_.end() ? lesson->second : nullptr;
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
}

void LessonStarter::followStudyEnded(int study)
{
    lessonOfStudy_.erase(study);
    if (lessonOfStudy_.empty() && holdsSettings())
        giveSettingsBack();
}

void LessonStarter::giveSettingsBack()
{
    const dp::TrainConfig user = *std::exchange(userSettings_, std::nullopt);
    panel_->setConfig(user);
}
