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
    // The worker's event loop quits once the run returns, within one batch.
    thread_.quit();
    thread_.wait();
}

void TrainingController::start(const dp::TrainConfig& config)
{
    currentTrainer_ = std::make_shared<dp::Trainer>(config);
    QMetaObject::invokeMethod(
        worker_, [worker = worker_, trainer = currentTrainer_] { worker->run(trainer); },
        Qt::QueuedConnection);
}

void TrainingController::requestStop()
{
    if (currentTrainer_)
        currentTrainer_->request_stop();
}
