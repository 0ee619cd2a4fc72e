#pragma once

#include <QObject>
#include <QSet>
#include <QString>
#include <QTimer>

#include <functional>
#include <optional>
#include <vector>

#include "config/train_config.h"
#include "run_progress.h"
#include "training_time_probe.h"

class RunConfigPanel;
class RunManager;
class RunQueue;

// The runs waiting in `queue`; `estimate` gives a run's seconds where measured (TrainingTimeProbe::estimatedSeconds).
QueueTime queueTime(const RunQueue& queue,
                    const std::function<std::optional<double>(const dp::TrainConfig&)>& estimate);

// The seconds a comparison takes: each of `configs` (its 1-device and
// N-device runs) `repeats` times, as `estimate` measured them; empty unless
// every one of them is measured: one count's time is never guessed from the other's.
std::optional<double> comparisonSeconds(const std::vector<dp::TrainConfig>& configs, int repeats,
                                        const std::function<std::optional<double>(const dp::TrainConfig&)>& estimate);

// A duration as a button says it: "under a minute", "about 6 min", "about 1 h 20 min".
QString roughDuration(double seconds);

// How long Compare 1 vs N will take with the settings panel's settings, told
// on the button before it is pressed ("Compare 1 vs 2 · about 6 min") and
// asked about once when it is long. Both of its runs' settings are probed
// (the 1-device run first, then the N-device run) once the settings have
// rested a moment and no run is in flight: a probe takes the cores a run
// needs, and a run started stops it. The probe is the window's one
// (EmptyChartGuide shares it), so two probes never time each other.
class RunTimeEstimates : public QObject {
    Q_OBJECT

public:
    // Comparisons estimated above this ask before they are queued.
    static constexpr double kConfirmAboveSeconds = 180;
    // How long the settings rest before their probes start (as EmptyChartGuide's).
    static constexpr int kProbeDelayMs = 1000;

    RunTimeEstimates(const RunConfigPanel* settings, const RunManager* runs, QObject* parent = nullptr);

    TrainingTimeProbe* probe() { return &probe_; }
    const TrainingTimeProbe& probe() const { return probe_; }

    // The runs Compare 1 vs N queues with the panel's settings, each once
    // (without the snapshot folder, which does not change their time); empty
    // when the panel's settings or devices allow no comparison.
    std::vector<dp::TrainConfig> comparisonConfigs() const;
    // Their seconds times the panel's repeats; empty until both are measured.
    std::optional<double> comparisonSeconds() const;
    // "Compare 1 vs 2 · about 6 min"; "Compare 1 vs 2" while not measured.
    QString compareButtonText() const;
    QString compareToolTip() const;
    // Asks `confirm` whether to queue a comparison estimated above
    // kConfirmAboveSeconds, once for these settings: true to go ahead (and
    // when it is shorter, or not measured).
    bool confirmComparison(const std::function<bool(const QString&)>& confirm);

    // The queue behind the run in flight, as this window's probe timed its runs.
    QueueTime queueTime(const RunQueue& queue) const;

signals:
    // A probe measured something: the button's text and the queue's time may change.
    void estimatesChanged();

private:
    // Probes the first of the comparison's runs not measured yet, unless a
    // run is in flight or another probe (the empty chart's) is running.
    void probeNext();

    const RunConfigPanel* settings_;
    const RunManager* runs_;
    TrainingTimeProbe probe_;
    QTimer probeDelay_;
    // The comparisons (by their runs' settings and repeats) the user agreed to run although long.
    QSet<QString> confirmed_;
};
