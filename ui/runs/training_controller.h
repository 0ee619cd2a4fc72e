#pragma once

#include <QObject>
#include <QThread>

#include <memory>

#include "study/study_runner.h"

class TrainingWorker;

// Owns the worker thread that studies run on. Destroying the controller
// stops a study in flight and waits for the thread, so closing the window
// mid-run is safe: the run in flight records its end as stopped.
class TrainingController : public QObject {
    Q_OBJECT

public:
    explicit TrainingController(QObject* parent = nullptr);
    ~TrainingController() override;

    // Connect to its signals to follow studies; they arrive queued. The
    // record sinks a study's runner makes may call it on its thread.
    TrainingWorker* worker() const { return worker_; }

    // Queues the study on the worker thread; what it does arrives as the
    // worker's signals, its end as TrainingWorker::studyFinished(`study`).
    void start(std::shared_ptr<dp::StudyRunner> runner, dp::StudyPlan plan, int study);

    // Callable at any time from this thread: the study last started stops
    // after its batch in flight, even if it has not begun yet.
    void requestStop();

private:
    QThread thread_;
    TrainingWorker* worker_;  // lives on thread_, deleted when it finishes
    // Shared with the worker so Stop reaches the study without locking here.
    std::shared_ptr<dp::StudyRunner> currentRunner_;
};
