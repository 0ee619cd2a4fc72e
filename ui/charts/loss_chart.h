#pragma once

#include <QHash>
#include <QSet>
#include <QTimer>

#include "decimated_trace.h"
#include "run_chart_view.h"
#include "record/run_record.h"
#include "loss_sample.h"

#include <vector>

// The least a loss chart's linear y axis shows below its top value `top`:
// 10% of it or 0.1, whichever is larger, never below 0. A loss between 2.29
// and 2.31 (an untrained 10-class model's ln 10) then sits at the top of an
// axis from about 2.08 rather than filling the plot as a dramatic curve.
RunChartView::Span lossAxisMinimumSpan(double top);

// Training loss per batch of the runs trained in this window, a line each,
// optionally smoothed (the raw loss then drawn faintly behind), on a linear
// or log scale, and each run's test loss as
// a dot at every epoch's end in the run's colour. Losses arrive in groups;
// the chart redraws at most a few times a second, from a decimated trace,
// however long the run. On a linear scale the y axis spans at least
// lossAxisMinimumSpan, so a nearly flat loss does not fill it as a dramatic curve.
class LossChart : public RunChartView {
    Q_OBJECT

public:
    explicit LossChart(QWidget* parent = nullptr);

    // Later losses belong to this run.
    void startRun(const dp::RunRecord& record, const QColor& color);
    void appendLosses(const QList<LossSample>& samples);
    // A run not trained in this window (from the history, imported): its
    // per-batch loss as its record kept it (RunRecord::batch_losses), else,
    // for records from before they were kept, its per-epoch training loss, a
    // point at each epoch's end. Nothing for a run that has its batches here.
    void showEpochLosses(const dp::RunRecord& record, const QColor& color);
    // The run's test loss after each of its epochs so far (none for epochs
    // recorded without one).
    void showTestLosses(const dp::RunRecord& record, const QColor& color);
    // The key of a run's test-loss line.
    static QString testLossKey(const QString& runKey);
    // The key of a run's raw loss, drawn faintly behind the smoothed one
    // (no points while the loss is not smoothed).
    static QString rawLossKey(const QString& runKey);
    // Lines keep their data while hidden.
    void setRunVisible(const std::string& id, bool visible);
    void removeRun(const std::string& id);
    void setXAxisMode(XAxisMode mode);
    void setSmoothed(bool smoothed);
    // How smooth: the moving average's weight, 0 to 0.99 (DecimatedTrace::points).
    void setSmoothingStrength(double strength);
    double smoothingStrength() const { return smoothingStrength_; }
    static constexpr double kDefaultSmoothingStrength = 0.9;

    // Draws pending losses now instead of at the next refresh.
    void refreshNow();

private:
    void redrawAll();
    // The run's raw-loss line, then its own, so that the raw one is drawn behind.
    void addLossLines(const QString& key, const QString& runName, const QColor& color);
    void plotTestLosses(const QString& key);
    // Fits the axes, the y axis at least lossAxisMinimumSpan below the top shown value.
    void fitLossAxes();

    QHash<QString, DecimatedTrace> traces_;
    QHash<QString, std::vector<dp::EpochMetrics>> testEpochs_;  // by run key
    QHash<QString, double> stepsPerEpoch_;  // by run key, for a steps axis (0: not known)
    QHash<QString, double> topValues_;  // the largest value of each line, by line key
    QString currentKey_;
    QSet<QString> stale_;
    QTimer refreshTimer_;
    XAxisMode mode_ = XAxisMode::epochs;
    bool smoothed_ = false;
    double smoothingStrength_ = kDefaultSmoothingStrength;
};
