#pragma once

#include <QString>
#include <QWidget>

#include <string>
#include <vector>

#include "speedup_chart.h"
#include "train/run_record.h"
#include "x_axis_mode.h"

class EpochMetricChart;
class LossChart;
class QDir;
class QGridLayout;
class RunChartView;

// The charts page: test accuracy, loss per batch, seconds per epoch, speedup
// and N-vs-1 drift, laid out in a grid. It owns the charts and tells every
// one of them what they all need to know (which runs are shown, the x axis,
// presenter fonts, export), so a new chart is one class and one line in the
// constructor.
class ChartBoard : public QWidget {
    Q_OBJECT

public:
    explicit ChartBoard(QWidget* parent = nullptr);

    // A run that starts now: the axes span its planned epochs.
    void startRun(const dp::RunRecord& record, const QColor& color);
    // Redraws the run's per-epoch lines with the record's epochs so far.
    void updateRun(const dp::RunRecord& record, const QColor& color);
    // Puts the run on every chart or takes it off (a run checked or unchecked).
    void setRunVisible(const dp::RunRecord& record, const QColor& color, bool visible);
    // Takes the run off for good, its losses too (deleted from the history).
    void removeRun(const std::string& id);

    void setSpeedupMeasurements(std::vector<SpeedupChart::Measurement> measurements);
    void setXAxisMode(XAxisMode mode);
    void setSmoothedLoss(bool smoothed);
    void setFontScale(double scale);
    // Redraws the loss chart now rather than at its next timer tick.
    void refreshNow();
    LossChart* lossChart() const { return loss_; }

    // Every chart as <name>.png and <name>.svg in `folder`; the path of the
    // first file it could not write, or empty.
    QString exportTo(const QDir& folder) const;

private:
    // Places `chart` at (row, column), spanning `columns`, exported as `name`.
    template <typename Chart>
    Chart* add(Chart* chart, const char* objectName, const char* exportName, int row, int column,
               int columns = 1);
    void showDrift(bool shown);

    QGridLayout* grid_;
    std::vector<std::pair<RunChartView*, QString>> charts_;  // with their export names
    std::vector<EpochMetricChart*> epochCharts_;             // told about every run's epochs
    EpochMetricChart* drift_;  // only the N-device runs of comparisons have a line here
    LossChart* loss_;
    SpeedupChart* speedup_;
};
