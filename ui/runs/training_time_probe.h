#pragma once

#include <QHash>
#include <QObject>
#include <QString>

#include <cstdint>
#include <memory>
#include <optional>

#include "config/train_config.h"

class QThread;

namespace dp {
class StudyRunner;
}

// How long a run takes on this machine, measured rather than guessed: a few
// steps of the run's own model, data, batch and devices (a probe), timed per
// image. A whole run is then its images times those seconds (issue 31: "about
// 1 minute on this machine", or no time at all where nothing was measured).
struct ProbeTiming {
    double trainSecondsPerImage = 0;  // forward, backward, all-reduce and update
    double testSecondsPerImage = 0;   // evaluation, and what else an epoch does
};

// The images a run of `config` trains and tests on each epoch: its limits,
// else the data set's counts (dataset_metadata.h), else the synthetic set's
// samples; 0 where unknown (an MNIST-format folder's).
struct ImagesPerEpoch {
    std::int64_t train = 0;
    std::int64_t test = 0;
};
ImagesPerEpoch imagesPerEpoch(const dp::TrainConfig& config);

// Seconds for `epochs` epochs of `images` at `timing`: each epoch trains on
// every training image and evaluates every test image. Kernel tuning and
// reading the data at the start are left out: the probe tuned the kernels
// (they are cached), and reading takes a moment against minutes of training.
double estimatedRunSeconds(const ProbeTiming& timing, const ImagesPerEpoch& images, int epochs);

// Runs probes one at a time on a thread of their own and remembers each
// result by the settings that decide a step's time (settingsKey): a failure
// for as long as the window is open, a measurement in QSettings too, so that
// a later launch with the same settings shows its estimate without a probe
// taking the cores at every start. A probe trains kProbeBatches batches for two
// epochs on the first images of the data and times the second epoch (the
// first tunes kernels and warms up); evaluation is timed on one batch of
// test images.
class TrainingTimeProbe : public QObject {
    Q_OBJECT

public:
    static constexpr int kProbeBatches = 3;

    explicit TrainingTimeProbe(QObject* parent = nullptr);
    ~TrainingTimeProbe() override;

    // What a probe of `config` measured; empty if none did (yet, or it failed).
    std::optional<ProbeTiming> timing(const dp::TrainConfig& config) const;
    // Whether a probe of these settings ran, successfully or not.
    bool isKnown(const dp::TrainConfig& config) const;
    // The seconds a run of `config` takes, where a probe measured its
    // settings and its images are known; empty otherwise.
    std::optional<double> estimatedSeconds(const dp::TrainConfig& config) const;
    // Probes `config` unless its settings are known or being probed; a probe
    // of other settings still running is stopped first.
    void measure(const dp::TrainConfig& config);
    // Takes `timing` for the settings of `config` as if a probe had measured
    // it, for this window only (not kept in QSettings): a timing known
    // without a probe (a test's fake one). Emits measured.
    void remember(const dp::TrainConfig& config, const ProbeTiming& timing);
    // Stops the running probe (a run starts and needs the cores), forgetting it.
    void stop();
    bool isRunning() const { return thread_ != nullptr; }

    // The settings that decide how long a step takes: model, data, batch,
    // devices, precision, all-reduce; not the epochs, seed or learning rate.
    static QString settingsKey(const dp::TrainConfig& config);

signals:
    // A probe of the settings of `key` ended; timing() has its result.
    void measured(const QString& key);

private:
    struct Result;
    // Stops the running probe, whose result is then dropped.
    void abandonRunning();
    void takeResult();

    QHash<QString, std::optional<ProbeTiming>> timings_;
    QThread* thread_ = nullptr;
    std::shared_ptr<dp::StudyRunner> runner_;  // the running probe's
    std::shared_ptr<Result> result_;
    QString runningKey_;
    std::optional<dp::TrainConfig> next_;  // asked for while another probe stopped
};
