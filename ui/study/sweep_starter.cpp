#include "sweep_starter.h"

#include <QDialog>

#include "config/device_choice.h"
#include "core/error.h"
#include "run_config_panel.h"
#include "run_manager.h"
#include "status_line.h"
#include "study/study_file.h"
#include "study/sweep_grid.h"
#include "study_window.h"
#include "sweep_dialog.h"

SweepStarter::SweepStarter(RunConfigPanel* settings, RunManager* runs, StatusLine* status, QWidget* window)
    : QObject(window), settings_(settings), runs_(runs), status_(status), window_(window)
{
    connect(runs_, &RunManager::studyRunEnded, this, &SweepStarter::followRunEnded);
    connect(runs_, &RunManager::studyEnded, this, &SweepStarter::followStudyEnded);
}

void SweepStarter::chooseSweep()
{
    if (!settings_->isValid()) {
        status_->show(tr("Cannot sweep: %1").arg(settings_->validationError()), true);
        return;
    }
    const dp::TrainConfig base = settings_->config();
    SweepDialog dialog(base, dp::select_devices(base.devices), window_);
    if (dialog.exec() != QDialog::Accepted || !dialog.isValid())
        return;
    startSweep(dialog.plan());
}

StudyWindow* SweepStarter::startSweep(dp::StudyPlan plan)
{
    auto* window = new StudyWindow(plan, window_);
    window->setWindowFlag(Qt::Window);
    window->show();
    const int runs = int(plan.runs().size());
    status_->appendLog(tr("— sweep %1: %2 runs").arg(QString::fromStdString(dp::sweep_grid_text(plan.grid))).arg(runs));
    Sweep& sweep = sweeps_[runs_->enqueue(plan)];
    sweep.plan = std::move(plan);
    sweep.window = window;
    return window;
}

void SweepStarter::followRunEnded(int study, const dp::RunRecord& record)
{
    const auto sweep = sweeps_.find(study);
    if (sweep != sweeps_.end() && sweep->second.window)
        sweep->second.window->addRun(record);
}

void SweepStarter::followStudyEnded(int study, const dp::StudyResult& result)
{
    const auto found = sweeps_.find(study);
    if (found == sweeps_.end())
        return;
    const Sweep sweep = std::move(found->second);
    sweeps_.erase(found);
    QString path;
    try {
        const std::filesystem::path file = dp::new_study_path();
        dp::write_study(file, dp::study_of(sweep.plan, result.records()));
        path = QString::fromStdString(file.string());
        status_->appendLog(tr("sweep: %1 of %2 runs, saved as %3")
                               .arg(result.runs.size())
                               .arg(sweep.plan.runs().size())
                               .arg(path));
    } catch (const dp::Error& error) {
        status_->show(tr("Sweep not saved: %1").arg(QString::fromUtf8(error.what())), true);
    }
    if (sweep.window)
        sweep.window->studyEnded(path);
}
