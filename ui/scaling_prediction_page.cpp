#include "scaling_prediction_page.h"

#include <QAreaSeries>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QScrollArea>
#include <QTextDocumentFragment>
#include <QThread>
#include <QVBoxLayout>

#include <algorithm>
#include <optional>
#include <tuple>
#include <utility>

#include "core/checked_math.h"
#include "core/error.h"
#include "core/exception_message.h"
#include "dataset_metadata.h"
#include "flow_layout.h"
#include "scaling_prediction_chart.h"
#include "scaling/prediction_band.h"
#include "scaling/scaling_comparison.h"
#include "scaling/scaling_probes.h"
#include "vertical_scroll_area.h"
#include "vocabulary.h"

namespace {

// The index of this machine's threads in the link box; presets follow.
constexpr int kThreadsLink = 0;

// A run's seconds per epoch as the runs table and comparisons quote it: the
// median of the epochs after the first (record/run_metrics.h: EpochTime).
double steadySecondsPerEpoch(const dp::RunRecord& record)
{
    return record.epochs.empty() ? 0 : record.summary().epoch_time().median;
}

// The training images one epoch of `config` visits; 0 when unknown.
std::int64_t samplesPerEpoch(const dp::TrainConfig& config)
{
    if (config.dataset == "random")
        return config.samples;
    const std::int64_t all = datasetMetadata(config.dataset).trainImages;
    if (config.limit_train > 0)
        return all > 0 ? std::min<std::int64_t>(all, config.limit_train) : config.limit_train;
    return all;
}

// The model's assumptions, listed under the chart whatever it shows.
QString assumptionsHtml()
{
    QStringList assumptions;
    for (const std::string& line : dp::prediction_assumptions())
        assumptions << QStringLiteral("• ") + QString::fromStdString(line).toHtmlEscaped();
    return ScalingPredictionPage::tr("<b>Assumptions</b><br>%1").arg(assumptions.join(QStringLiteral("<br>")));
}

// The global batch a run on `devices` has at `scaling` from `record`'s:
// the same (strong), or the same per device (weak); none on overflow.
std::optional<int> scalingBatch(const dp::RunRecord& record, dp::Scaling scaling, int devices)
{
    if (scaling == dp::Scaling::strong)
        return record.config.batch_size;
    const int perDevice = record.config.batch_size / std::max(1, record.device_count());
    return dp::checked_multiply(perDevice, devices);
}

// Whether `run` trains `record`'s workload, whatever its batch and lr.
bool sameWorkload(const dp::RunRecord& record, const dp::RunRecord& run)
{
    dp::TrainConfig asBase = run.config;
    asBase.batch_size = record.config.batch_size;
    asBase.lr = record.config.lr;
    return dp::baseline_mismatch(record.config, asBase).empty();
}

// The checked runs of the predicted workload: those at the chosen scaling's
// batch, each with the speedup predicted at its device count; and a line
// for each run of the other scaling, which the chosen line would misjudge.
struct MeasuredRuns {
    std::vector<ScalingPredictionChart::MeasuredSpeedup> compared;
    QStringList otherScaling;
    // Each compared run's speedup with its range, and what its record says
    // of its conditions, for a comment when it falls outside the band (in
    // the order of `compared`).
    std::vector<std::pair<dp::BandCheck, dp::BandEvidence>> bandChecks;
};

// `run`'s measured speedup and its range from the steady epochs (the
// baseline's fastest over its slowest to the reverse, as comparisons
// have it) against `record` (1 device), or against `oneDevice` seconds
// predicted; the runs' load and phases beside `predicted`.
std::pair<dp::BandCheck, dp::BandEvidence> bandCheck(const dp::RunRecord& record, const dp::RunRecord& run,
                                                     double oneDevice, const dp::PredictedPoint& predicted)
{
    const dp::EpochTime base = record.summary().epoch_time(), time = run.summary().epoch_time();
    const bool measuredBase = record.device_count() == 1;
    dp::BandCheck check;
    check.devices = run.device_count();
    check.speedup = oneDevice / time.median;
    check.speedup_min = (measuredBase ? base.min : oneDevice) / time.max;
    check.speedup_max = (measuredBase ? base.max : oneDevice) / time.min;
    dp::BandEvidence evidence;
    evidence.other_cores = run.other_cores;
    evidence.busy = run.busy;
    evidence.usable_cores = run.usable_cores;
    evidence.baseline_other_cores = record.other_cores;
    evidence.baseline_busy = measuredBase && record.busy;
    evidence.steady_epochs = measuredBase ? std::min(base.steady_epochs, time.steady_epochs) : time.steady_epochs;
    dp::add_phase_evidence(evidence, run.summary(), predicted);
    return {check, evidence};
}

// The band's ends at `devices` as the chart draws it; none where it has no point there.
std::optional<std::pair<double, double>> bandAt(const QAreaSeries& band, int devices)
{
    const QList<QPointF> low = band.lowerSeries()->points(), high = band.upperSeries()->points();
    for (qsizetype i = 0; i < low.size() && i < high.size(); ++i)
        if (low[i].x() == devices)
            return std::pair{low[i].y(), high[i].y()};
    return std::nullopt;
}

MeasuredRuns measuredRuns(const std::vector<std::pair<dp::RunRecord, QColor>>& runs,
                          const dp::RunRecord& record, const dp::WorkloadProfile& profile,
                          const dp::PredictionSettings& settings, double oneDevice)
{
    const dp::Scaling other = settings.scaling == dp::Scaling::strong ? dp::Scaling::weak : dp::Scaling::strong;
    MeasuredRuns measured;
    for (const auto& [run, color] : runs) {
        const int devices = run.device_count();
        if (run.epochs.empty() || !sameWorkload(record, run))
            continue;
        const QString name = QString::fromStdString(run.label());
        if (run.config.batch_size == scalingBatch(record, settings.scaling, devices)) {
            const dp::PredictedPoint predicted = dp::predict(profile, settings, {devices}).front();
            measured.compared.push_back({name, color, devices, oneDevice / steadySecondsPerEpoch(run), predicted.speedup});
            measured.bandChecks.push_back(bandCheck(record, run, oneDevice, predicted));
        } else if (run.config.batch_size == scalingBatch(record, other, devices)) {
            const QString otherName = QString::fromUtf8(dp::scaling_name(other));
            measured.otherScaling << ScalingPredictionPage::tr(
                    "%1 (%2) ran %3 scaling (batch %4): choose %3 scaling to compare it.")
                    .arg(name, ScalingPredictionChart::devicesText(devices), otherName)
                    .arg(run.config.batch_size);
        }
    }
    return measured;
}

// What the ideal line is at `scaling`: both are N at N devices, but of a
// different thing (one epoch's time, or the images a second).
QString idealName(dp::Scaling scaling)
{
    return scaling == dp::Scaling::strong ? ScalingPredictionPage::tr("ideal: N× as fast (strong scaling)")
                                          : ScalingPredictionPage::tr("ideal: N× the throughput (weak scaling)");
}

}  // namespace

std::optional<dp::CoreSharing> ScalingPredictionPage::fittedSharing(const dp::RunRecord& base) const
{
    if (!sharing_)
        return std::nullopt;
    // Only runs of the same workload at the same global batch say how much
    // slower a device computes when its neighbours compute too.
    std::vector<dp::TrainConfig> configs;
    std::vector<dp::RunSummary> summaries;
    for (const auto& run : runs_) {
        const dp::RunRecord& record = run.first;
        if (record.has_step_timings() && record.config.batch_size == base.config.batch_size
            && dp::baseline_mismatch(base.config, record.config).empty()) {
            configs.push_back(record.config);
            summaries.push_back(record.summary());
        }
    }
    dp::CoreSharing sharing = dp::fit_core_sharing(sharing_->cores, configs, summaries);
    if (sharing.source.empty())
        return std::nullopt;
    return sharing;
}

ScalingPredictionPage::ScalingPredictionPage(QWidget* parent)
    : QWidget(parent),
      linkCombo_(new QComboBox),
      algorithmCombo_(new QComboBox),
      scalingCombo_(new QComboBox),
      status_(new QLabel),
      chart_(new ScalingPredictionChart),
      caption_(new QLabel),
      details_(new QLabel)
{
    linkCombo_->setObjectName(QStringLiteral("predictionLink"));
    algorithmCombo_->setObjectName(QStringLiteral("predictionAlgorithm"));
    scalingCombo_->setObjectName(QStringLiteral("predictionScaling"));
    status_->setObjectName(QStringLiteral("predictionStatus"));
    caption_->setObjectName(QStringLiteral("predictionCaption"));
    details_->setObjectName(QStringLiteral("predictionAssumptions"));

    linkCombo_->addItem(tr("This machine's threads (measured)"));
    for (const dp::LinkModel& preset : dp::link_presets())
        linkCombo_->addItem(QString::fromStdString(preset.name));
    algorithmCombo_->addItem(tr("ring"), int(dp::AllReduceStrategy::ring));
    algorithmCombo_->addItem(tr("naive"), int(dp::AllReduceStrategy::naive));
    algorithmCombo_->addItem(tr("DataParallel"), int(dp::AllReduceStrategy::dataparallel));
    algorithmCombo_->setToolTip(tr("ring: NCCL's; naive: everything through device 0; DataParallel: "
                                   "nn.DataParallel's step, which also gathers the outputs to device 0, "
                                   "updates there alone and broadcasts the parameters"));
    scalingCombo_->addItem(tr("strong: same global batch"), int(dp::Scaling::strong));
    scalingCombo_->addItem(tr("weak: same batch per device"), int(dp::Scaling::weak));
    linkCombo_->setToolTip(tr("The link between devices: this machine's threads are measured by "
                              "a short all-reduce probe; the others are presets (README)"));

    // Each combo as wide as its longest item ("This machine's threads
    // (measured)"): where the row has no room for all three (a 1024-pixel
    // screen, presenter mode's font), they wrap onto a second line rather
    // than cut their names short.
    auto* controls = new FlowLayout;
    controls->addGroup({new QLabel(tr("Link")), linkCombo_});
    controls->addGroup({new QLabel(tr("All-reduce")), algorithmCombo_});
    controls->addGroup({new QLabel(tr("Scaling")), scalingCombo_});

    status_->setWordWrap(true);
    caption_->setWordWrap(true);
    caption_->setTextFormat(Qt::RichText);
    caption_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    caption_->setMinimumWidth(220);
    details_->setWordWrap(true);
    details_->setTextFormat(Qt::RichText);
    details_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    // The notes in the page's own font, not a smaller one: presenter mode's
    // enlarged font reaches them only while they set none of their own.
    chart_->setMinimumHeight(160);
    // The link, the cores and the assumptions scroll under the chart, which
    // keeps most of the height (a 1280 x 720 window leaves the tab little).
    auto* detailsScroll = new VerticalScrollArea(details_);
    detailsScroll->setObjectName(QStringLiteral("predictionNotesScroll"));
    detailsScroll->setMinimumHeight(3 * details_->fontMetrics().lineSpacing());

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(controls);
    layout->addWidget(status_);
    // The caption beside the chart, not under it: at 1280 x 720 a few lines
    // under it leave the plot too short for its axis labels.
    // Its lines scroll where they outgrow the chart's height (repeats of a
    // comparison, each a line; presenter mode's font on a 768-line screen).
    auto* captionScroll = new VerticalScrollArea(caption_);
    captionScroll->setObjectName(QStringLiteral("predictionCaptionScroll"));
    auto* chartRow = new QHBoxLayout;
    chartRow->addWidget(chart_, 3);
    chartRow->addWidget(captionScroll, 1);
    layout->addLayout(chartRow, 3);
    layout->addWidget(detailsScroll, 1);

    for (QComboBox* box : {linkCombo_, algorithmCombo_, scalingCombo_})
        connect(box, &QComboBox::currentIndexChanged, this, &ScalingPredictionPage::updatePrediction);
    updatePrediction();
}

QString ScalingPredictionPage::statusText() const
{
    return status_->text();
}

QString ScalingPredictionPage::captionText() const
{
    return QTextDocumentFragment::fromHtml(caption_->text()).toPlainText();
}

void ScalingPredictionPage::setRuns(const std::vector<std::pair<dp::RunRecord, QColor>>& runs)
{
    runs_ = runs;
    probeError_.clear();  // other runs: a failed measurement is tried again
    updatePrediction();
}

void ScalingPredictionPage::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    updatePrediction();  // measures this machine's link once the page is seen
}

ScalingPredictionPage::~ScalingPredictionPage()
{
    if (!probe_)
        return;
    probe_->wait();  // its results go nowhere, but it must not outlive them
    delete probe_;
}

std::optional<dp::ThreadLinkMeasurement> ScalingPredictionPage::threadLink(const LinkKey& threads)
{
    return dp::thread_link_cache().find(dp::AllReduceStrategy(threads.first), threads.second);
}

dp::LinkModel ScalingPredictionPage::chosenLink(const LinkKey& threads) const
{
    if (linkCombo_->currentIndex() != kThreadsLink)
        return dp::link_presets().at(std::size_t(linkCombo_->currentIndex() - 1));
    return threadLink(threads).value().link;
}

std::vector<dp::ThreadLinkProbe> ScalingPredictionPage::chosenLinkProbes(const LinkKey& threads) const
{
    if (linkCombo_->currentIndex() != kThreadsLink)
        return {};
    return threadLink(threads).value().probes;
}

std::optional<QString> ScalingPredictionPage::missingMeasurement(const std::optional<LinkKey>& threads)
{
    const bool linkMissing = threads && !threadLink(*threads);
    if (sharing_ && !linkMissing)
        return std::nullopt;
    if (!probeError_.isEmpty())
        return tr("Could not measure this machine: %1").arg(probeError_);
    startProbe(linkMissing ? threads : std::nullopt);
    return linkMissing ? tr("Measuring how fast this machine's threads all-reduce (a few seconds at most)…")
                       : tr("Measuring how this machine's cores share their work (under a second)…");
}

void ScalingPredictionPage::startProbe(const std::optional<LinkKey>& threads)
{
    if (probe_)
        return;  // its end updates the prediction, which asks again
    auto result = std::make_shared<ProbeResult>();
    result->key = threads;
    const bool needsSharing = !sharing_;
    // The worker touches `result` alone; the GUI thread reads it once the thread has finished.
    probe_ = QThread::create([result, needsSharing] {
        try {
            if (needsSharing)
                result->sharing = dp::measure_core_sharing({}, {});
            if (result->key)  // kept in the process's cache, which the Classroom's ring shares
                dp::thread_link_cache().get(dp::AllReduceStrategy(result->key->first), result->key->second);
        } catch (...) {
            result->error = QString::fromStdString(dp::current_exception_message());
        }
    });
    probeResult_ = result;
    connect(probe_, &QThread::finished, this, &ScalingPredictionPage::takeProbeResult);
    probe_->start();
}

void ScalingPredictionPage::takeProbeResult()
{
    const std::shared_ptr<ProbeResult> result = std::exchange(probeResult_, nullptr);
    probe_->deleteLater();
    probe_ = nullptr;
    probeError_ = result->error;
    if (result->error.isEmpty() && result->sharing)
        sharing_ = result->sharing;
    updatePrediction();
}

void ScalingPredictionPage::updatePrediction()
{
    const std::pair<dp::RunRecord, QColor>* base = predictionBase();
    if (!base) {
        clearPrediction(tr("Check a run with a finished epoch in the Runs table (a 1-device run is best) "
                           "to predict how it scales."));
        return;
    }
    const dp::RunRecord& record = base->first;
    const std::int64_t samples = samplesPerEpoch(record.config);
    if (samples <= 0) {
        clearPrediction(tr("%1: its data set's image count is unknown; set a training image limit to "
                           "predict from it.").arg(QString::fromStdString(record.label())));
        return;
    }
    if (!isVisible() && linkCombo_->currentIndex() == kThreadsLink) {
        // The probes run once the page is seen, not for every checked run meanwhile.
        status_->setText(tr("Predicting from %1").arg(QString::fromStdString(record.label())));
        return;
    }
    const auto algorithm = dp::AllReduceStrategy(algorithmCombo_->currentData().toInt());
    const auto scaling = dp::Scaling(scalingCombo_->currentData().toInt());
    int probeDevices = 2;
    for (const auto& run : runs_)
        probeDevices = std::max(probeDevices, run.first.device_count());
    const LinkKey threads{int(algorithm), probeDevices};
    if (const std::optional<QString> missing =
                missingMeasurement(linkCombo_->currentIndex() == kThreadsLink ? std::optional(threads)
                                                                              : std::nullopt)) {
        clearPrediction(*missing);
        return;
    }
    try {
        predictFrom(record, samples, {algorithm, chosenLink(threads), {}, scaling}, chosenLinkProbes(threads));
    } catch (...) {
        clearPrediction(QString::fromStdString(dp::current_exception_message()));
    }
}

const std::pair<dp::RunRecord, QColor>* ScalingPredictionPage::predictionBase() const
{
    // The run to predict from: a finished 1-device run first.
    const std::pair<dp::RunRecord, QColor>* base = nullptr;
    for (const auto& run : runs_) {
        if (run.first.epochs.empty())
            continue;
        if (!base || (run.first.device_count() == 1 && base->first.device_count() != 1))
            base = &run;
    }
    return base;
}

void ScalingPredictionPage::clearPrediction(const QString& why)
{
    status_->setText(why);
    chart_->setPrediction({}, tr("predicted"));
    chart_->setMeasured({});
    chart_->setSpread({}, {});
    caption_->clear();
    details_->setText(assumptionsHtml());
}

void ScalingPredictionPage::predictFrom(const dp::RunRecord& record, std::int64_t samples,
                                        dp::PredictionSettings settings,
                                        const std::vector<dp::ThreadLinkProbe>& probes)
{
    const int baseDevices = record.device_count();
    // Records with step timings (every run since they were kept) give the
    // phases, and their 1- and 2-device runs the core sharing; older
    // records give their seconds per epoch only.
    const bool timed = record.has_step_timings();
    settings.sharing = fittedSharing(record).value_or(*sharing_);
    const dp::WorkloadProfile profile =
        timed ? dp::workload_profile(record.config, record.summary(), settings.sharing)
              : dp::workload_profile_from_epochs(record.config, baseDevices,
                                                 steadySecondsPerEpoch(record), samples, settings.sharing);
    const auto points = dp::predict(profile, settings, dp::prediction_device_counts());
    QList<QPointF> line;
    for (const dp::PredictedPoint& point : points)
        line.append(QPointF(point.devices, point.speedup));
    chart_->setIdealName(idealName(settings.scaling));
    // The ideal's name says the scaling: the legend elides long entries.
    chart_->setPrediction(line, tr("predicted (%1)").arg(algorithmCombo_->currentText()));
    // Measured speedups over the measured 1-device run, as the runs table
    // has them; over the predicted one only when no 1-device run is checked.
    const double oneDevice = baseDevices == 1 ? steadySecondsPerEpoch(record) : points.front().seconds_per_epoch;
    const MeasuredRuns measured = measuredRuns(runs_, record, profile, settings, oneDevice);
    chart_->setMeasured(measured.compared);
    const QString spread = showSpread(profile, settings, probes);
    // Issue 42: a measurement outside the band, which way and why.
    QStringList outOfBand;
    for (auto [check, evidence] : measured.bandChecks) {
        const auto band = bandAt(*chart_->spreadBand(), check.devices);
        if (band)
            std::tie(check.band_low, check.band_high) = *band;
        outOfBand << (band ? QString::fromStdString(dp::band_miss_comment(check, evidence)) : QString());
    }
    showCaption(spread, measured.compared, outOfBand, measured.otherScaling);
    status_->setText(tr("Predicting from %1: %2 on %3 (the median of its epochs after "
                        "the first), %4 images an epoch.")
                         .arg(QString::fromStdString(record.label()))
                         .arg(vocabulary::secondsPerEpoch(steadySecondsPerEpoch(record)))
                         .arg(ScalingPredictionChart::devicesText(baseDevices))
                         .arg(samples));
    showPredictionDetails(settings.link, settings.sharing, timed);
}

void ScalingPredictionPage::showCaption(const QString& spread,
                                        const std::vector<ScalingPredictionChart::MeasuredSpeedup>& compared,
                                        const QStringList& outOfBand, const QStringList& otherScaling)
{
    QStringList lines;
    if (!spread.isEmpty())
        lines << spread.toHtmlEscaped();
    // Right under the band, each marked with its run's diamond: a long list
    // of runs below would push them out of sight.
    for (std::size_t i = 0; i < compared.size() && i < std::size_t(outOfBand.size()); ++i)
        if (!outOfBand[qsizetype(i)].isEmpty())
            lines << QStringLiteral("<span style=\"color:%1\">◆</span> %2")
                             .arg(compared[i].color.name(), outOfBand[qsizetype(i)].toHtmlEscaped());
    // The diamonds' legend: the chart's one row would elide such entries.
    for (const ScalingPredictionChart::MeasuredSpeedup& point : compared)
        lines << QStringLiteral("<span style=\"color:%1\">◆</span> %2")
                         .arg(point.color.name(), point.comparisonText().toHtmlEscaped());
    for (const QString& line : otherScaling)
        lines << line.toHtmlEscaped();
    if (!compared.empty())
        lines << tr("Time error: the predicted epoch against the measured one.");
    caption_->setText(lines.join(QStringLiteral("<br>")));
}

QString ScalingPredictionPage::showSpread(const dp::WorkloadProfile& profile, dp::PredictionSettings settings,
                                          const std::vector<dp::ThreadLinkProbe>& probes)
{
    if (probes.empty()) {
        chart_->setSpread({}, {});
        return {};
    }
    const double median = dp::predict(profile, settings, {2}).front().speedup;
    const std::vector<int> counts = dp::prediction_device_counts();
    QList<QPointF> low, high;
    for (const dp::ThreadLinkProbe& probe : probes) {
        settings.link = probe.link;
        const auto points = dp::predict(profile, settings, counts);
        for (std::size_t i = 0; i < points.size(); ++i) {
            const QPointF point(points[i].devices, points[i].speedup);
            if (low.size() <= qsizetype(i)) {
                low.append(point);
                high.append(point);
            }
            low[qsizetype(i)].setY(std::min(low[qsizetype(i)].y(), point.y()));
            high[qsizetype(i)].setY(std::max(high[qsizetype(i)].y(), point.y()));
        }
    }
    chart_->setSpread(low, high);
    // counts[1] is 2 devices: the spread where a first comparison can check it.
    return tr("At 2 devices: %1x predicted from the probes' median link, %2x-%3x over the %n probes' "
              "links (the shaded band).", nullptr, int(probes.size()))
            .arg(median, 0, 'f', 2)
            .arg(low[1].y(), 0, 'f', 2)
            .arg(high[1].y(), 0, 'f', 2);
}

void ScalingPredictionPage::showPredictionDetails(const dp::LinkModel& link,
                                                  const dp::CoreSharing& sharing, bool timed)
{
    QString sharingLine;
    if (link.shared_cores > 0)
        sharingLine = tr("<br><b>Cores</b>: %1 shared; with all of them busy a device takes %2x its time alone (%3)")
                          .arg(sharing.cores)
                          .arg(sharing.busy_slowdown, 0, 'f', 2)
                          .arg(QString::fromStdString(sharing.source).toHtmlEscaped());
    details_->setText(tr("<b>Link</b>: %1: %2%3<br>%4")
                          .arg(QString::fromStdString(link.name).toHtmlEscaped(),
                               QString::fromStdString(link.source).toHtmlEscaped(), sharingLine,
                               assumptionsHtml())
                      + (timed ? QString()
                               : tr("<br>• This run's record has no step timings (it predates "
                                    "them), so all of a step counts as per-sample compute.")));
}
