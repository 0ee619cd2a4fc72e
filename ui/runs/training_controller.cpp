#include "training_controller.h"

#include "training_worker.h"

TrainingController::TrainingController(QObject* parent)
    : QObject(parent), worker_(new TrainingWorker)
{
    thread_.setObjectName(QStringLiteral("training"));
    worker_->moveToThread(&thread_);
    connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
    // Training yields to the GUI thread: clicks and repaints never wait for a
    // core that the device threads hold (bench-ui-stall measures it).
    dp::Trainer::set_background_priority(true);
    thread_.start(QThread::LowPriority);
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
