#pragma once

#include <QHash>

#include <vector>

#include "run_chart_view.h"
#include "record/run_record.h"

// Per-epoch measurements (accuracy, seconds per epoch, drift) of every shown
// run against epochs or training seconds: d2l's Animator with runs overlaid.
// A run has a line per measurement in its colour, told apart by line style
// (accuracy: test solid, train dashed), with a dot on every epoch.
class EpochMetricChart : public RunChartView {
    Q_OBJECT

public:
    using Metric = double (*)(const dp::EpochMetrics&);
    struct Measurement {
        QString name;  // in the readout and the style legend: "test acc"
        Metric metric;
        Qt::PenStyle pen = Qt::SolidLine;
    };

    // The first measurement's line of a run is keyed by the run's id.
    EpochMetricChart(const QString& title, std::vector<Measurement> measurements,
                     QWidget* parent = nullptr);

    // Adds the run's lines, or redraws them with the record's epochs so far.
    void showRun(const dp::RunRecord& record, const QColor& color);
    void hideRun(const std::string& id);
    int runCount() const { return int(epochs_.size()); }
    // The run's line of the `measurement`th measurement; null if not shown.
    using RunChartView::lineOf;
    const QLineSeries* lineOf(const std::string& runId, std::size_t measurement) const
    {
        return lineOf(lineKey(QString::fromStdString(runId), measurement));
    }
    void setXAxisMode(XAxisMode mode);
    // Values the y axis never passes (accuracy: [0, 1]).
    void setValueBounds(double min, double max) { setYBounds(min, max); }
    // Values the axis always shows (accuracy: [0, 1]; seconds: from 0).
    void setValuesAlwaysShown(double min, double max) { setYAlwaysShown(min, max); }

private:
    QString lineKey(const QString& runKey, std::size_t measurement) const;
    void plot(const QString& runKey);

    std::vector<Measurement> measurements_;
    XAxisMode mode_ = XAxisMode::epochs;
    QHash<QString, std::vector<dp::EpochMetrics>> epochs_;
};
