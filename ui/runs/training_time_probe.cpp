#include "training_time_probe.h"

#include <QCryptographicHash>
#include <QElapsedTimer>
#include <QSettings>
#include <QStringList>
#include <QThread>

#include <algorithm>
#include <atomic>
#include <utility>
#include <vector>

#include "core/error.h"
#include "dataset_metadata.h"
#include "study/study_runner.h"

// What a probe's thread hands back: the end of each epoch on its clock and
// its training seconds (EpochMetrics::seconds).
struct TrainingTimeProbe::Result : dp::StudyObserver {
    std::atomic<bool> discarded{false};  // stopped: its timing says nothing
    ImagesPerEpoch images;               // the probe's own
    QElapsedTimer clock;
    std::vector<double> epochEnds;
    std::vector<double> trainSeconds;

    void on_epoch(const dp::EpochMetrics& metrics) override
    {
        epochEnds.push_back(double(clock.nsecsElapsed()) * 1e-9);
        trainSeconds.push_back(metrics.seconds);
    }

    // The second epoch: its training over the probe's training images; the
    // rest of the time since the first ended (its evaluation mostly) over
    // the test images.
    std::optional<ProbeTiming> timing() const
    {
        if (discarded || epochEnds.size() < 2 || images.train <= 0 || images.test <= 0)
            return std::nullopt;
        const double train = trainSeconds[1];
        const double rest = std::max(0.0, epochEnds[1] - epochEnds[0] - train);
        return ProbeTiming{train / double(images.train), rest / double(images.test)};
    }
};

namespace {

// The run's settings on the first few batches of its data, writing nothing.
dp::TrainConfig probeConfig(const dp::TrainConfig& config, ImagesPerEpoch& images)
{
    dp::TrainConfig probe = config;
    probe.epochs = 2;
    probe.warmup_epochs = 0;
    probe.preview_samples = 0;
    probe.retune = false;
    probe.load_path.clear();
    probe.save_path.clear();
    probe.record_path.clear();
    probe.trace_path.clear();
    probe.snapshot_dir.clear();
    probe.drift_from.clear();
    const ImagesPerEpoch whole = imagesPerEpoch(config);
    const std::int64_t batches = std::int64_t(TrainingTimeProbe::kProbeBatches) * config.batch_size;
    const auto atMost = [](std::int64_t wanted, std::int64_t available) {
        return available > 0 ? std::min(wanted, available) : wanted;
    };
    if (config.dataset == "random") {
        probe.samples = int(atMost(batches, config.samples));
        images = {probe.samples, probe.samples};
    } else {
        probe.limit_train = int(atMost(batches, whole.train));
        probe.limit_test = int(atMost(config.batch_size, whole.test));
        images = {probe.limit_train, probe.limit_test};
    }
    return probe;
}

}  // namespace

ImagesPerEpoch imagesPerEpoch(const dp::TrainConfig& config)
{
    if (config.dataset == "random")
        return {config.samples, config.samples};
    const DatasetMetadata metadata = datasetMetadata(config.dataset);
    const auto limited = [](int limit, int all) -> std::int64_t {
        return limit > 0 && (all == 0 || limit < all) ? limit : all;
    };
    return {limited(config.limit_train, metadata.trainImages), limited(config.limit_test, metadata.testImages)};
}

double estimatedRunSeconds(const ProbeTiming& timing, const ImagesPerEpoch& images, int epochs)
{
    const double epoch = double(images.train) * timing.trainSecondsPerImage
                         + double(images.test) * timing.testSecondsPerImage;
    return epoch * std::max(0, epochs);
}

TrainingTimeProbe::TrainingTimeProbe(QObject* parent) : QObject(parent) {}

TrainingTimeProbe::~TrainingTimeProbe()
{
    if (!thread_)
        return;
    stop();
    thread_->wait();  // the probe must not outlive what it reports to
    delete thread_;
}

QString TrainingTimeProbe::settingsKey(const dp::TrainConfig& config)
{
    dp::TrainConfig timed = config;
    // What a step's time does not depend on.
    timed.epochs = 1;
    timed.seed = 0;
    timed.lr = 0.1f;
    timed.weight_decay = 0;
    timed.warmup_epochs = 0;
    timed.limit_train = 0;
    timed.limit_test = 0;
    QString key = QString::fromStdString(dp::shared_settings(timed));
    key += QStringLiteral("data_dir=") + QString::fromStdString(config.data_dir);
    QStringList devices;
    for (const std::string& device : config.devices)
        devices << QString::fromStdString(device);
    key += QStringLiteral("\ndevices=") + devices.join(QLatin1Char(','));
    return key;
}

std::optional<ProbeTiming> TrainingTimeProbe::timing(const dp::TrainConfig& config) const
{
    return timings_.value(settingsKey(config));
}

bool TrainingTimeProbe::isKnown(const dp::TrainConfig& config) const
{
    return timings_.contains(settingsKey(config));
}

std::optional<double> TrainingTimeProbe::estimatedSeconds(const dp::TrainConfig& config) const
{
    const std::optional<ProbeTiming> measured = timing(config);
    const ImagesPerEpoch images = imagesPerEpoch(config);
    if (!measured || images.train <= 0 || images.test <= 0)
        return std::nullopt;
    return estimatedRunSeconds(*measured, images, config.epochs);
}

namespace {

// Where a measured timing is kept between launches: QSettings under
// "trainingTime/", by a hash of the settings key (which holds line breaks
// and slashes). An estimate of minutes needs no new probe at each start.
QString storedKey(const QString& settingsKey)
{
    return QStringLiteral("trainingTime/")
        + QString::fromLatin1(
            QCryptographicHash::hash(settingsKey.toUtf8(), QCryptographicHash::Sha1).toHex());
}

std::optional<ProbeTiming> storedTiming(const QString& settingsKey)
{
    const QStringList values = QSettings().value(storedKey(settingsKey)).toStringList();
    bool trainOk = false, testOk = false;
    const ProbeTiming timing{values.value(0).toDouble(&trainOk), values.value(1).toDouble(&testOk)};
    if (values.size() != 2 || !trainOk || !testOk || !(timing.trainSecondsPerImage > 0)
        || !(timing.testSecondsPerImage >= 0))
        return std::nullopt;
    return timing;
}

void storeTiming(const QString& settingsKey, const ProbeTiming& timing)
{
    QSettings().setValue(storedKey(settingsKey),
                         QStringList{QString::number(timing.trainSecondsPerImage, 'g', 17),
                                     QString::number(timing.testSecondsPerImage, 'g', 17)});
}

}  // namespace

void TrainingTimeProbe::measure(const dp::TrainConfig& config)
{
    const QString key = settingsKey(config);
    if (timings_.contains(key))
        return;
    if (const std::optional<ProbeTiming> stored = storedTiming(key)) {
        timings_.insert(key, stored);
        emit measured(key);
        return;
    }
    if (thread_) {
        next_ = config;
        if (key != runningKey_)
            abandonRunning();
        return;
    }
    next_.reset();
    result_ = std::make_shared<Result>();
    // A study of one unrecorded run, as every run the window starts is one
    // (study/study_runner.h); settings that cannot run leave no timing.
    std::optional<dp::StudyPlan> plan;
    try {
        plan = dp::single_run_plan(probeConfig(config, result_->images));
    } catch (const dp::Error&) {
        // No epochs: remembered as a probe that failed, as a run that fails is.
    }
    runner_ = std::make_shared<dp::StudyRunner>(dp::StudyRunner::Options{});
    runningKey_ = key;
    thread_ = QThread::create([runner = runner_, result = result_, plan = std::move(plan)] {
        result->clock.start();
        if (plan)
            runner->run(*plan, *result);  // a failure comes to on_failed, which leaves no timing
    });
    connect(thread_, &QThread::finished, this, &TrainingTimeProbe::takeResult);
    thread_->start(QThread::LowPriority);
}

void TrainingTimeProbe::remember(const dp::TrainConfig& config, const ProbeTiming& timing)
{
    const QString key = settingsKey(config);
    if (next_ && settingsKey(*next_) == key)
        next_.reset();
    if (thread_ && runningKey_ == key)
        abandonRunning();  // its result would replace this one
    timings_.insert(key, timing);
    emit measured(key);
}

void TrainingTimeProbe::stop()
{
    next_.reset();
    abandonRunning();
}

void TrainingTimeProbe::abandonRunning()
{
    if (!thread_)
        return;
    result_->discarded = true;
    runner_->request_stop();
}

void TrainingTimeProbe::takeResult()
{
    const std::shared_ptr<Result> result = std::exchange(result_, nullptr);
    thread_->deleteLater();
    thread_ = nullptr;
    runner_.reset();
    const QString key = std::exchange(runningKey_, QString());
    if (!result->discarded) {
        // A failed probe (no data yet, say) is remembered too: no estimate
        // rather than a probe at every change.
        const std::optional<ProbeTiming> timing = result->timing();
        timings_.insert(key, timing);
        if (timing)  // a failure is not kept: the data may be there next time
            storeTiming(key, *timing);
        emit measured(key);
    }
    if (std::optional<dp::TrainConfig> next = std::exchange(next_, std::nullopt))
        measure(*next);
}
