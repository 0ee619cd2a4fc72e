#pragma once

#include <QColor>
#include <QStringList>
#include <QWidget>

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "record/run_record.h"
#include "scaling_prediction_chart.h"
#include "scaling/scaling_predictor.h"
#include "scaling/scaling_probes.h"

class QComboBox;
class QLabel;
class QThread;

// The Scaling tab: what if the checked run ran on 1..64 devices. The user
// picks a link (this machine's threads, measured by five short all-reduce
// probes the first time the tab shows, once per process: the Classroom's ring
// shares the measurement; or a preset: PCIe, NVLink, Ethernet), the
// all-reduce (ring, naive or DataParallel's step) and strong or weak scaling; the chart draws the
// predicted speedup with the checked runs of the same workload as markers
// (each with the prediction's error there), the caption under it the
// prediction's spread over the thread link's probes and the runs of the
// other scaling, and the model's assumptions and the link's source follow.
// This machine's cores and threads are measured on a worker thread, never
// on the GUI thread: the page says so meanwhile, and predicts when they end.
class ScalingPredictionPage : public QWidget {
    Q_OBJECT

public:
    explicit ScalingPredictionPage(QWidget* parent = nullptr);
    // Waits for a measurement in flight (under a few seconds).
    ~ScalingPredictionPage() override;
    // Whether this machine's cores or threads are being measured.
    bool isMeasuring() const { return probe_ != nullptr; }

    // The checked runs, each with its colour on the charts. The prediction
    // starts from the first finished 1-device run among them (else the first
    // finished one); the others of its workload are the measured points.
    void setRuns(const std::vector<std::pair<dp::RunRecord, QColor>>& runs);

    ScalingPredictionChart* chart() const { return chart_; }
    // What the page says above the chart: which run it predicts from, or why none.
    QString statusText() const;
    // What the caption under the chart says: the spread at 2 devices and
    // the runs measured at the other scaling.
    QString captionText() const;

protected:
    void showEvent(QShowEvent* event) override;

private:
    using LinkKey = std::pair<int, int>;  // (algorithm, devices) of a thread link
    // What a measurement on the worker thread found, or why it failed.
    struct ProbeResult {
        std::optional<dp::CoreSharing> sharing;
        std::optional<LinkKey> key;  // the thread link measured into dp::thread_link_cache()
        QString error;
    };

    void updatePrediction();
    // The run to predict from: the first finished 1-device run, else the
    // first finished one; none without a finished run.
    const std::pair<dp::RunRecord, QColor>* predictionBase() const;
    // No prediction: `why` above the chart, the assumptions under it.
    void clearPrediction(const QString& why);
    // The predicted speedups from `record`, with `settings`' sharing fitted
    // from the checked runs; the measured ones; what it was predicted from;
    // with `probes` (this machine's threads), the spread over their links.
    void predictFrom(const dp::RunRecord& record, std::int64_t samples, dp::PredictionSettings settings,
                     const std::vector<dp::ThreadLinkProbe>& probes);
    // The band of `settings` predicted over each of `probes`' links, and
    // the caption's line for 2 devices; none without probes.
    QString showSpread(const dp::WorkloadProfile& profile, dp::PredictionSettings settings,
                       const std::vector<dp::ThreadLinkProbe>& probes);
    // Under the chart: `spread`, the sentence on each `compared` run whose
    // range lies outside the band (`outOfBand`, in their order; empty for
    // the others), each run's comparison in its colour, and the lines on
    // the runs of the other scaling.
    void showCaption(const QString& spread, const std::vector<ScalingPredictionChart::MeasuredSpeedup>& compared,
                     const QStringList& outOfBand, const QStringList& otherScaling);
    // The link's and cores' sources and the model's assumptions, under the chart.
    void showPredictionDetails(const dp::LinkModel& link, const dp::CoreSharing& sharing, bool timed);
    // What the prediction still lacks from this machine (the core sharing,
    // the thread link of `threads` when that link is chosen): none if it
    // lacks nothing; else starts measuring it on a worker thread, unless a
    // measurement runs already, and says what is measured or why it failed.
    std::optional<QString> missingMeasurement(const std::optional<LinkKey>& threads);
    void startProbe(const std::optional<LinkKey>& threads);
    // The worker's results, kept; then the prediction with them.
    void takeProbeResult();
    // This machine's threads as a link, if measured (by this page or the Classroom's ring).
    static std::optional<dp::ThreadLinkMeasurement> threadLink(const LinkKey& threads);
    // The link chosen: a preset, or this machine's threads as measured.
    dp::LinkModel chosenLink(const LinkKey& threads) const;
    // The probes behind the chosen link: none for a preset.
    std::vector<dp::ThreadLinkProbe> chosenLinkProbes(const LinkKey& threads) const;
    // The core sharing fitted from the checked runs of `base`'s workload on 1
    // and 2.. devices (with step timings); none without such runs.
    std::optional<dp::CoreSharing> fittedSharing(const dp::RunRecord& base) const;

    QComboBox* linkCombo_;
    QComboBox* algorithmCombo_;
    QComboBox* scalingCombo_;
    QLabel* status_;
    ScalingPredictionChart* chart_;
    QLabel* caption_;
    QLabel* details_;
    std::vector<std::pair<dp::RunRecord, QColor>> runs_;
    std::optional<dp::CoreSharing> sharing_;
    QString probeError_;  // why the last measurement failed (tried again for other runs)
    QThread* probe_ = nullptr;  // the measurement in flight, if any
    std::shared_ptr<ProbeResult> probeResult_;  // written by probe_ alone until it ends
};
