#pragma once

#include <QObject>
#include <QTemporaryDir>

#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "config/train_config.h"
#include "study/study_plan.h"
#include "record/run_record.h"

class LessonBanner;
struct Lesson;
class RunConfigPanel;
class RunManager;

// Starts a lesson as one click would: its last run's settings into the
// panel while its runs go (so Start or Compare repeats it), its runs queued
// behind any in flight, one comparison where it compares device counts, and
// the banner saying what to look for until a run that is not a lesson's
// starts. The lesson borrows the panel: the user's own settings come back
// once its last run ends or Stop drops its runs, and meanwhile the window
// does not remember the lesson's as the user's (holdsSettings). Where the
// finished runs contradict the lesson's text, the banner says why (lesson_result_note.h).
class LessonStarter : public QObject {
    Q_OBJECT

public:
    LessonStarter(RunConfigPanel* panel, RunManager* runs, LessonBanner* banner, QObject* parent = nullptr);

    // Starts lesson `name` (Lesson::name); empty if it did, else why not in
    // a sentence, with nothing queued.
    QString start(const QString& name);
    // Whether the panel shows a lesson's settings rather than the user's.
    bool holdsSettings() const { return userSettings_.has_value(); }

private:
    // `configs`, the runs of `lesson`, as one study: each comparison a group,
    // each run named where its label cannot tell it. Throws dp::Error when a
    // run's settings do not hold.
    static dp::StudyPlan lessonPlan(const Lesson& lesson, const std::vector<dp::TrainConfig>& configs);
    // Whether the run that started is a lesson's.
    void followRunStarted(const dp::RunRecord& record);
    // Keeps a lesson's ended runs; after its last, checks them against its text.
    void followRunEnded(const dp::RunRecord& record);
    // Gives the user's settings back once no lesson's study is left.
    void followStudyEnded(int study);
    void giveSettingsBack();

    RunConfigPanel* panel_;
    RunManager* runs_;
    LessonBanner* banner_;
    // The lessons queued or in flight, by their study (RunManager::enqueue's number).
    std::map<int, const Lesson*> lessonOfStudy_;
    const Lesson* queuing_ = nullptr;  // the lesson being handed to RunManager::enqueue
    // The lesson of the run in flight; null when it is none's.
    const Lesson* running_ = nullptr;
    // The runs of the lesson in flight that ended so far, in order.
    std::vector<dp::RunRecord> ended_;
    // The panel's settings before the first lesson took it.
    std::optional<dp::TrainConfig> userSettings_;
    // Each lesson's 1-device parameter snapshots (dp::TrainConfig::snapshot_dir),
    // kept while the window is open.
    std::vector<std::unique_ptr<QTemporaryDir>> snapshots_;
};
