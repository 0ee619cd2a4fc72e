#pragma once

#include <QObject>
#include <QTemporaryDir>

#include <memory>
#include <vector>

#include "config/train_config.h"

class LessonBanner;
struct Lesson;
class RunConfigPanel;
class RunManager;

namespace dp {
struct RunRecord;
}

// Starts a lesson as one click would: its last run's settings into the
// panel (so Start or Compare repeats it), its runs queued behind any in
// flight, one comparison where it compares device counts, and the banner
// saying what to look for until a run that is not a lesson's starts.
class LessonStarter : public QObject {
    Q_OBJECT

public:
    LessonStarter(RunConfigPanel* panel, RunManager* runs, LessonBanner* banner, QObject* parent = nullptr);

    // Starts lesson `name` (Lesson::name); empty if it did, else why not in
    // a sentence, with nothing queued.
    QString start(const QString& name);

private:
    // Queues `configs`, the runs of `lesson`: each comparison a group, each run named where its label cannot tell it.
    void queue(const Lesson& lesson, const std::vector<dp::TrainConfig>& configs);
    // Keeps the banner for the lessons' runs, hides it for any other.
    void followRunStarted(const dp::RunRecord& record);

    RunConfigPanel* panel_;
    RunManager* runs_;
    LessonBanner* banner_;
    // The lessons' runs queued and not started yet.
    std::vector<dp::TrainConfig> waiting_;
    // Each lesson's 1-device parameter snapshots (dp::TrainConfig::snapshot_dir),
    // kept while the window is open.
    std::vector<std::unique_ptr<QTemporaryDir>> snapshots_;
};
