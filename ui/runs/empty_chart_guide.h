#pragma once

#include <QObject>
#include <QTimer>

#include <memory>

#include "training_time_probe.h"

class EmptyChartText;
class QChartView;
class RunConfigPanel;
class RunsTableModel;

// Tells an empty chart what to say: with no runs at all, to press Start,
// with the settings' model and data and how long that run will take here;
// with runs but none checked, to check them; nothing once one is checked.
// The time is measured, never guessed: a probe of the settings
// (TrainingTimeProbe) runs once they have rested a moment, on its own
// thread, and is stopped as soon as a run appears; until it has measured
// (or where it cannot), the text leaves the time out.
class EmptyChartGuide : public QObject {
    Q_OBJECT

public:
    // With `sharedProbe` (the window's, RunTimeEstimates'), its probes run on
    // that one, which its owner stops when a run starts; without, on one of its own.
    EmptyChartGuide(const RunsTableModel* runs, const RunConfigPanel* settings, QChartView* chart,
                    QObject* parent = nullptr, TrainingTimeProbe* sharedProbe = nullptr);

    // What the chart says now; empty when it says nothing.
    QString message() const;
    const TrainingTimeProbe& probe() const { return *probe_; }

    // How long the settings rest before a probe of them starts: a user
    // typing an epoch count starts no probe per key.
    static constexpr int kProbeDelayMs = 1000;

private:
    void update();
    QString startMessage() const;

    const RunsTableModel* runs_;
    const RunConfigPanel* settings_;
    EmptyChartText* text_;
    std::unique_ptr<TrainingTimeProbe> ownProbe_;  // without a shared one
    TrainingTimeProbe* probe_;
    QTimer probeDelay_;
};
