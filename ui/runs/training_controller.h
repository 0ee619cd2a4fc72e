#pragma once

#include <QObject>
#include <QThread>

#include <memory>

#include "config/train_config.h"
#include "train/trainer.h"

class TrainingWorker;

// Owns the worker thread that training runs on. Destroying the controller
// stops a run in flight and waits for the thread, so closing the window
// mid-run is safe.
class TrainingController : public QObject {
    Q_OBJECT

public:
    explicit TrainingController(QObject* parent = nullptr);
    ~TrainingController() override;

    // Connect to its signals to follow runs; they arrive queued.
    const TrainingWorker* worker() const { return worker_; }

    // Queues a run on the worker thread; its outcome arrives as the worker's
    // signals.
    void start(const dp::TrainConfig& config);

    // Callable at any time from this thread: the current run, if any, stops
    // after its batch in flight, even if it has not begun yet.
    void requestStop();

private:
    QThread thread_;
    TrainingWorker* worker_;  // lives on thread_, deleted when it finishes
    // Shared with the worker so Stop reaches the run without locking.
    std::shared_ptr<dp::Trainer> currentTrainer_;
};
