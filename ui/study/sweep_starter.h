#pragma once

#include <QObject>
#include <QPointer>
#include <QString>

#include <map>

#include "study/study_plan.h"
#include "study/study_runner.h"

class QWidget;
class RunConfigPanel;
class RunManager;
class StatusLine;
class StudyWindow;

// Run ▸ Sweep…: the panel's settings swept over a grid of device counts,
// batch sizes and learning rates (SweepDialog), queued as one study. A
// StudyWindow follows it run by run (table and heat map), and its end is
// written as a study file in the data folder (dp-train --sweep's format,
// study/study_file.h), which File ▸ Open study opens again.
class SweepStarter : public QObject {
    Q_OBJECT

public:
    SweepStarter(RunConfigPanel* settings, RunManager* runs, StatusLine* status, QWidget* window);

    // Asks for the grid, then startSweep; says in the status line why not
    // when the panel's settings cannot run.
    void chooseSweep();
    // Queues `plan` (a sweep's) and opens its window over the main window.
    StudyWindow* startSweep(dp::StudyPlan plan);

private:
    void followRunEnded(int study, const dp::RunRecord& record);
    void followStudyEnded(int study, const dp::StudyResult& result);

    RunConfigPanel* settings_;
    RunManager* runs_;
    StatusLine* status_;
    QWidget* window_;
    // The sweeps queued or running, by study number, with their grid and
    // the window following each (null once the user closed it).
    struct Sweep {
        dp::StudyPlan plan;
        QPointer<StudyWindow> window;
    };
    std::map<int, Sweep> sweeps_;
};
