#pragma once

#include <QWidget>

#include <map>
#include <optional>

#include "ring_allreduce_model.h"

class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QThread;
class QTimer;
class QToolButton;

// The ring all-reduce step by step: N devices as a ring, each one's
// gradient buffer as N chunks coloured and labelled by the devices whose
// gradients they sum; the 2(N-1) steps of reduce-scatter then all-gather,
// played, paused, stepped back and forward at a chosen speed; what each step
// costs over a link (this machine's threads, as dp::thread_link_cache()
// measures them for the Scaling tab too, or a preset); and beside it the
// same all-reduce's traffic naive (everything through device 0) and a step
// of nn.DataParallel's. The buffer is the model's real gradient buckets, the
// outputs the run's batch. Sizes follow the font (presenter mode enlarges it).
class RingAllReduceView : public QWidget {
    Q_OBJECT

public:
    explicit RingAllReduceView(QWidget* parent = nullptr);
    ~RingAllReduceView() override;

    const RingAllReduceModel& model() const { return model_; }
    // Steps done, 0..2(N-1); and whether one is being animated.
    int step() const { return doneSteps_; }
    bool isPlaying() const;
    // What the step shown is, and what it costs.
    QString stepText() const;
    QString trafficText() const;
    // Whether the step times wait for this machine's threads to be measured
    // (their link chosen, neither measured nor failed yet).
    bool awaitsMeasurement() const;
    // Where the step's moving chunks are, 0..1 of the way.
    double flightProgress() const { return flight_; }

    // The model whose buckets are all-reduced, its bucket cap, the device
    // count to show (below 2: 4), and the global batch of `classes` outputs
    // a sample that DataParallel gathers.
    void setRun(const QString& modelName, double bucketMegabytes, int devices, int globalBatch,
                int classes);
    void setDevices(int devices);

public slots:
    void stepForward();
    void stepBack();
    void setStep(int doneSteps);
    void play();
    void pause();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void rebuildModel();
    void advance();
    void refresh();
    // The link the clock uses, if known: a preset, or this machine's
    // threads once measured (for each strategy: DataParallel's is naive's).
    std::optional<dp::LinkModel> link(dp::AllReduceStrategy algorithm) const;
    QString linkName() const;
    // Why there is no time: being measured, or the measurement's error.
    QString missingTimeText() const;
    // Measures this machine's threads at the device count shown, once per
    // process (dp::thread_link_cache()), off the GUI thread.
    void probeThreadsIfNeeded();
    void takeProbe();

    QString modelName_ = QStringLiteral("lenet");
    double bucketMegabytes_ = 25;
    int globalBatch_ = 64;
    int classes_ = 10;
    RingAllReduceModel model_;
    int doneSteps_ = 0;
    double flight_ = 0;  // > 0 while the next step's chunks travel

    QSpinBox* devicesSpin_;
    QToolButton* backButton_;
    QPushButton* playButton_;
    QToolButton* stepButton_;
    QComboBox* speedCombo_;
    QComboBox* linkCombo_;
    QLabel* stepLabel_;
    QWidget* diagram_;
    QLabel* trafficLabel_;
    QTimer* timer_;

    std::map<int, QString> probeErrors_;  // by device count: why measuring failed
    int probedDevices_ = 0;               // the count probeThread_ measures
    QString probeError_;                  // written by probeThread_ alone until it ends
    QThread* probeThread_ = nullptr;
};
