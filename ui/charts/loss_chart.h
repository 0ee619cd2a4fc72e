#pragma once

#include <QHash>
#include <QSet>
#include <QTimer>

#include "decimated_trace.h"
#include "run_chart_view.h"
#include "record/run_record.h"
#include "loss_sample.h"

// Training loss per batch of the runs trained in this window, a line each,
// optionally smoothed, on a linear or log scale. Losses arrive in groups; the
// chart redraws at most a few times a second, from a decimated trace, however
// long the run.
class LossChart : public RunChartView {
    Q_OBJECT

public:
    explicit LossChart(QWidget* parent = nullptr);

    // Later losses belong to this run.
    void startRun(const dp::RunRecord& record, const QColor& color);
    void appendLosses(const QList<LossSample>& samples);
    // A run not trained in this window (from the history, imported): its
    // per-epoch training loss, a point at each epoch's end, since per-batch
    // losses are not kept. Nothing for a run that has its batches here.
    void showEpochLosses(const dp::RunRecord& record, const QColor& color);
    // Lines keep their data while hidden.
    void setRunVisible(const std::string& id, bool visible);
    void removeRun(const std::string& id);
    void setXAxisMode(XAxisMode mode);
    void setSmoothed(bool smoothed);

    // Draws pending losses now instead of at the next refresh.
    void refreshNow();

private:
    void redrawAll();

    QHash<QString, DecimatedTrace> traces_;
    QString currentKey_;
    QSet<QString> stale_;
    QTimer refreshTimer_;
    XAxisMode mode_ = XAxisMode::epochs;
    bool smoothed_ = false;
};
