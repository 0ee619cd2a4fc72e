#pragma once

#include <QHash>

#include <vector>

#include "run_chart_view.h"
#include "train/run_record.h"

// One per-epoch measurement (test accuracy, seconds per epoch) of every shown
// run, a line each, against epochs or training seconds: d2l's Animator with
// runs overlaid, each named by its RunRecord::label().
class EpochMetricChart : public RunChartView {
    Q_OBJECT

public:
    using Metric = double (*)(const dp::EpochMetrics&);

    // `fixedRange`: y stays [0, 1] (accuracies) instead of following the data.
    EpochMetricChart(const QString& title, const QString& yTitle, Metric metric, bool fixedRange,
                     QWidget* parent = nullptr);

    // Adds the run's line, or redraws it with the record's epochs so far.
    void showRun(const dp::RunRecord& record, const QColor& color);
    void hideRun(const std::string& id);
    void setXAxisMode(XAxisMode mode);
    // Epochs the x axis spans before data exceeds them (the run's plan).
    void setPlannedEpochs(int epochs);
    // A log y axis, for values spanning decades (drift from 1e-9 to 1e-3).
    void setLogScaleY();

private:
    void plot(const QString& key);
    void updateEmptyRange();

    Metric metric_;
    bool logY_ = false;
    XAxisMode mode_ = XAxisMode::epochs;
    int plannedEpochs_ = 10;
    QHash<QString, std::vector<dp::EpochMetrics>> epochs_;
};
