#pragma once

#include <QWidget>

#include <map>
#include <memory>
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
// costs over a link (this machine's threads, probed, or a preset); and the
// same all-reduce's traffic naive (everything through device 0) beside it.
// The buffer is the model's real gradient buckets. Sizes follow the font
// (presenter mode enlarges it).
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
    // Where the step's moving chunks are, 0..1 of the way.
    double flightProgress() const { return flight_; }

    // The model whose buckets are all-reduced, its bucket cap, and the
    // device count to show (below 2: 4).
    void setRun(const QString& modelName, double bucketMegabytes, int devices);
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
    // threads once probed (for the ring and for naive).
    std::optional<dp::LinkModel> link(dp::AllReduceAlgorithm algorithm) const;
    QString linkName() const;
    void probeThreadsIfNeeded();
    void takeProbe();

    QString modelName_ = QStringLiteral("lenet");
    double bucketMegabytes_ = 25;
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

    struct ThreadLinks {
        dp::LinkModel ring, naive;
    };
    std::map<int, std::optional<ThreadLinks>> threadLinks_;  // by device count; empty: the probe failed
    struct Probe;
    std::shared_ptr<Probe> probe_;
    QThread* probeThread_ = nullptr;
};
