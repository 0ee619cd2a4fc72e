#pragma once

#include <QColor>
#include <QWidget>

#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "train/run_record.h"
#include "train/scaling_predictor.h"

class QComboBox;
class QLabel;
class ScalingPredictionChart;

// The Scaling tab: what if the checked run ran on 1..64 devices. The user
// picks a link (this machine's threads, measured by a short all-reduce probe
// the first time the tab shows, or a preset: PCIe, NVLink, Ethernet), the
// all-reduce (naive or ring) and strong or weak scaling; the chart draws the
// predicted speedup with the checked runs of the same workload as markers,
// and the model's assumptions and the link's source are listed under it.
class ScalingPredictionPage : public QWidget {
    Q_OBJECT

public:
    explicit ScalingPredictionPage(QWidget* parent = nullptr);

    // The checked runs, each with its colour on the charts. The prediction
    // starts from the first finished 1-device run among them (else the first
    // finished one); the others of its workload are the measured points.
    void setRuns(const std::vector<std::pair<dp::RunRecord, QColor>>& runs);

    ScalingPredictionChart* chart() const { return chart_; }
    // What the page says above the chart: which run it predicts from, or why none.
    QString statusText() const;

protected:
    void showEvent(QShowEvent* event) override;

private:
    void updatePrediction();
    // The link chosen, measuring this machine's threads if chosen and not yet measured.
    dp::LinkModel chosenLink(dp::AllReduceAlgorithm algorithm, int probeDevices);
    // The core sharing fitted from the checked runs of `base`'s workload on 1
    // and 2.. devices (with step timings); none without such runs.
    std::optional<dp::CoreSharing> fittedSharing(const dp::RunRecord& base) const;

    QComboBox* linkCombo_;
    QComboBox* algorithmCombo_;
    QComboBox* scalingCombo_;
    QLabel* status_;
    ScalingPredictionChart* chart_;
    QLabel* details_;
    std::vector<std::pair<dp::RunRecord, QColor>> runs_;
    std::optional<dp::CoreSharing> sharing_;
    std::map<std::pair<int, int>, dp::LinkModel> threadLinks_;  // by (algorithm, devices)
};
