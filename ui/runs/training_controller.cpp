#include "training_controller.h"

#include "training_worker.h"

TrainingController::TrainingController(QObject* parent)
    : QObject(parent), worker_(new TrainingWorker)
{
    thread_.setObjectName(QStringLiteral("training"));
    worker_->moveToThread(&thread_);
    connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
    // Training runs at the process's normal priority, as in dp-train, so the
    // workbench measures what dp-train measures (devices/device_thread.h).
    thread_.start();
}

TrainingController::~TrainingController()
{
    requestStop();
    // The worker's event loop quits once the study returns, within one batch
    // and the run's end written.
    thread_.quit();
    thread_.wait();
}

void TrainingController::start(std::shared_ptr<dp::StudyRunner> runner, dp::StudyPlan plan, int study)
{
    currentRunner_ = runner;
    QMetaObject::invokeMethod(
        worker_,
        [worker = worker_, runner = std::move(runner), plan = std::move(plan), study] {
            worker->run(runner, plan, study);
        },
        Qt::QueuedConnection);
}

void TrainingController::requestStop()
{
    if (currentRunner_)
        currentRunner_->request_stop();
}
