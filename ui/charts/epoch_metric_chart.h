#pragma once

#include <QHash>

class QAreaSeries;

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

    // A seed group (runs differing only in their seed) keyed `key`: for each
    // measurement the members' median per epoch as one line in `color`, and
    // for the first a translucent band from their lowest to highest value,
    // drawn in place of the members' own lines. The group answers to its
    // first member's legend entry (the run whose colour it takes): hidden
    // there, the group is hidden, through every redraw.
    void showSeedGroup(const QString& key, const QString& name,
                       const std::vector<dp::RunRecord>& members, const QColor& color);
    void hideSeedGroup(const QString& key);
    // The group's band (its upper and lower series are the highest and
    // lowest lines); null if not shown.
    const QAreaSeries* seedBandOf(const QString& key) const { return bands_.value(key); }
    static QString lowestKey(const QString& groupKey) { return groupKey + QStringLiteral("/lowest"); }
    static QString highestKey(const QString& groupKey) { return groupKey + QStringLiteral("/highest"); }
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
    void plotSeedGroup(const QString& key);
    // The group's members' own lines, drawn again.
    void restoreMemberLines(const QString& key);

    std::vector<Measurement> measurements_;
    XAxisMode mode_ = XAxisMode::epochs;
    QHash<QString, std::vector<dp::EpochMetrics>> epochs_;
    // Each run's and seed group's optimizer steps per epoch, for a steps
    // axis (dp::steps_per_epoch; 0: not known).
    QHash<QString, double> stepsPerEpoch_;
    QHash<QString, std::vector<std::vector<dp::EpochMetrics>>> seedGroups_;  // the members' epochs
    QHash<QString, QAreaSeries*> bands_;
    QHash<QString, QStringList> seedGroupMembers_;  // run keys, whose lines the group replaces
};
