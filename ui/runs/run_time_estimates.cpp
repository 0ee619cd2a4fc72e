#include "run_time_estimates.h"

#include <QCoreApplication>

#include <cmath>

#include "core/error.h"
#include "run_config_panel.h"
#include "run_manager.h"
#include "run_queue.h"
#include "scaling/scaling_comparison.h"

QueueTime queueTime(const RunQueue& queue,
                    const std::function<std::optional<double>(const dp::TrainConfig&)>& estimate)
{
    QueueTime time;
    time.runs = queue.rowCount();
    for (int row = 0; row < time.runs; ++row)
        if (const std::optional<double> seconds = estimate(queue.at(row).config)) {
            ++time.timed;
            time.seconds += *seconds;
        }
    return time;
}

std::optional<double> comparisonSeconds(const std::vector<dp::TrainConfig>& configs, int repeats,
                                        const std::function<std::optional<double>(const dp::TrainConfig&)>& estimate)
{
    if (configs.empty())
        return std::nullopt;
    double once = 0;
    for (const dp::TrainConfig& config : configs) {
        const std::optional<double> seconds = estimate(config);
        if (!seconds)
            return std::nullopt;
        once += *seconds;
    }
    return once * std::max(1, repeats);
}

QString roughDuration(double seconds)
{
    const auto tr = [](const char* text) { return QCoreApplication::translate("RunTimeEstimates", text); };
    if (seconds < 60)
        return tr("under a minute");
    const long long minutes = std::llround(seconds / 60);
    if (minutes < 60)
        return tr("about %1 min").arg(minutes);
    return tr("about %1 h %2 min").arg(minutes / 60).arg(minutes % 60);
}

RunTimeEstimates::RunTimeEstimates(const RunConfigPanel* settings, const RunManager* runs, QObject* parent)
    : QObject(parent), settings_(settings), runs_(runs)
{
    probeDelay_.setSingleShot(true);
    probeDelay_.setInterval(kProbeDelayMs);
    connect(&probeDelay_, &QTimer::timeout, this, &RunTimeEstimates::probeNext);
    connect(&probe_, &TrainingTimeProbe::measured, this, [this] {
        emit estimatesChanged();
        probeNext();  // the comparison's other run, or what waited for the empty chart's probe
    });
    connect(settings, &RunConfigPanel::configChanged, &probeDelay_, qOverload<>(&QTimer::start));
    connect(settings, &RunConfigPanel::validityChanged, &probeDelay_, qOverload<>(&QTimer::start));
    // A run needs the cores, and times itself; once the queue is done, the probes go on.
    connect(runs, &RunManager::runStarted, this, [this] {
        probeDelay_.stop();
        probe_.stop();
    });
    connect(runs, &RunManager::runEnded, &probeDelay_, qOverload<>(&QTimer::start));
    probeDelay_.start();
}

std::vector<dp::TrainConfig> RunTimeEstimates::comparisonConfigs() const
{
    if (!settings_->isValid() || settings_->checkedDeviceCount() < 2)
        return {};
    try {
        return dp::comparison_configs(settings_->config(), {1, settings_->checkedDeviceCount()},
                                      settings_->scalesWithDeviceCount());
    } catch (const dp::Error&) {
        return {};  // Compare says why when pressed
    }
}

std::optional<double> RunTimeEstimates::comparisonSeconds() const
{
    return ::comparisonSeconds(comparisonConfigs(), settings_->comparisonRepeats(),
                               [this](const dp::TrainConfig& config) { return probe_.estimatedSeconds(config); });
}

QString RunTimeEstimates::compareButtonText() const
{
    const QString compare = tr("Compare 1 vs %1").arg(std::max(2, settings_->checkedDeviceCount()));
    const std::optional<double> seconds = comparisonSeconds();
    return seconds ? tr("%1 · %2").arg(compare, roughDuration(*seconds)) : compare;
}

QString RunTimeEstimates::compareToolTip() const
{
    const int repeats = settings_->comparisonRepeats();
    QString tip = tr("Queue these settings on 1 device, then on all the checked devices, "
                     "and compare their speed in the runs table");
    if (repeats > 1)
        tip += tr(" (%1 times each, alternating)").arg(repeats);
    const std::vector<dp::TrainConfig> configs = comparisonConfigs();
    if (configs.empty())
        return tip;
    if (const std::optional<double> seconds = comparisonSeconds())
        return tip + tr(".\nIt takes %1 on this machine, as a short probe of each run timed it.")
                         .arg(roughDuration(*seconds));
    return tip + tr(".\nHow long it takes is not measured yet: a short probe of each run times it "
                    "while no run is in flight.");
}

bool RunTimeEstimates::confirmComparison(const std::function<bool(const QString&)>& confirm)
{
    const std::optional<double> seconds = comparisonSeconds();
    if (!seconds || *seconds <= kConfirmAboveSeconds)
        return true;
    QString key = QString::number(settings_->comparisonRepeats());
    for (const dp::TrainConfig& config : comparisonConfigs())
        key += TrainingTimeProbe::settingsKey(config) + QString::number(config.epochs);
    if (confirmed_.contains(key))
        return true;
    const int devices = settings_->checkedDeviceCount();
    const int repeats = settings_->comparisonRepeats();
    const QString runs = repeats > 1 ? tr("%1 runs on 1 device and %1 on %2").arg(repeats).arg(devices)
                                     : tr("a run on 1 device and one on %1").arg(devices);
    if (!confirm(tr("Compare 1 vs %1 takes %2 on this machine (%3, %4 epochs each). Start it?")
                     .arg(devices)
                     .arg(roughDuration(*seconds), runs)
                     .arg(settings_->config().epochs)))
        return false;
    confirmed_.insert(key);
    return true;
}

QueueTime RunTimeEstimates::queueTime(const RunQueue& queue) const
{
    return ::queueTime(queue, [this](const dp::TrainConfig& config) { return probe_.estimatedSeconds(config); });
}

void RunTimeEstimates::probeNext()
{
    if (runs_->isRunning() || probe_.isRunning())
        return;  // measured (or the run's end) calls again
    for (const dp::TrainConfig& config : comparisonConfigs())
        if (!probe_.isKnown(config)) {
            probe_.measure(config);
            return;
        }
}
