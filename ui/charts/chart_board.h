#pragma once

#include <QString>
#include <QWidget>

#include <array>
#include <map>
#include <string>
#include <vector>

#include "speedup_chart.h"
#include "scaling/speedup_gap.h"
#include "record/run_record.h"
#include "widget_image_export.h"
#include "x_axis_mode.h"

class DeviceUtilisationView;
class EpochMetricChart;
class QButtonGroup;
class GapWaterfallChart;
class LossChart;
class QDir;
class QHBoxLayout;
class QDoubleSpinBox;
class QGridLayout;
class QLabel;
class QPushButton;
class QScrollArea;
class QVBoxLayout;
class RunChartView;
class RunLegend;

// The charts page: accuracy (test and train), loss per batch, seconds per
// epoch, speedup, where a comparison's time goes and N-vs-1 drift, laid out in a grid under one legend of the
// shown runs. It owns the charts and tells every one of them what they all
// need to know (which runs are shown, the x axis and its range, presenter
// fonts, zoom, export), so a new chart is one class and one line in the
// constructor. The charts over epochs or seconds share one x range, so that
// a run's points line up from chart to chart, zoomed or not: zooming or
// panning one zooms the others to its x range, and a reset resets them all.
// While the loss is smoothed, a strength beside the legend sets how much
// (remembered in the settings). Narrower than three charts
// side by side (a 1024-px screen beside the settings), the grid reflows to
// two charts a row. Given a least plot height (presenter mode: a third of the
// screen) that the grid's rows cannot give, it shows one chart large and the
// others a click away on a row of buttons (the focus view); Ctrl+1..6 and
// PgUp/PgDn switch the chart there. The legend shows three lines of runs;
// more scroll in it.
class ChartBoard : public QWidget {
    Q_OBJECT

public:
    explicit ChartBoard(QWidget* parent = nullptr);

    // A run that starts now: its losses go to the loss chart.
    void startRun(const dp::RunRecord& record, const QColor& color);
    // Redraws the run's per-epoch lines with the record's epochs so far.
    void updateRun(const dp::RunRecord& record, const QColor& color);
    // Puts the run on every chart or takes it off (a run checked or unchecked).
    void setRunVisible(const dp::RunRecord& record, const QColor& color, bool visible);
    // Takes the run off for good, its losses too (deleted from the history).
    void removeRun(const std::string& id);
    // While one lives, the legend and the shared x range wait: the runs shown
    // or taken off meanwhile (an import of many files, the history's checked
    // runs at launch) lay the legend out and read every chart's extent once,
    // when the last hold ends, not once per run.
    class LegendHold {
    public:
        explicit LegendHold(ChartBoard& board);
        ~LegendHold();
        LegendHold(const LegendHold&) = delete;
        LegendHold& operator=(const LegendHold&) = delete;

    private:
        ChartBoard& board_;
    };

    void setSpeedupMeasurements(std::vector<SpeedupChart::Measurement> measurements);
    // The gap to the ideal speedup of `runName` (an N-device run) against its
    // 1-device baseline, its measured bar in `color`; none: the empty state.
    void setSpeedupGap(const std::optional<dp::SpeedupGap>& gap, const QString& runName = {},
                       const QColor& color = {});
    void setXAxisMode(XAxisMode mode);
    void setSmoothedLoss(bool smoothed);
    // The settings' key of the loss smoothing's strength.
    static const QString kSmoothingStrengthKey;
    void setLogScaleLoss(bool log);
    // The text `scale` times its normal size; of that, `screenGrowth` is the
    // screen's (presenter mode on a screen larger than full HD), which the
    // legend and the CPU view follow in full, keeping their share of it.
    void setFontScale(double scale, double screenGrowth = 1.0);
    // Every chart shows all its data again.
    void resetZoom();
    // Redraws the loss chart now rather than at its next timer tick.
    void refreshNow();
    LossChart* lossChart() const { return loss_; }
    GapWaterfallChart* gapChart() const { return gap_; }
    DeviceUtilisationView* utilisationView() const { return utilisation_; }

    // Every chart as <name>.png (kExportSize at twice its pixels) and
    // <name>.svg in `folder`, whatever their size on screen (the drift chart
    // only once a comparison measured drift); the path of the first file it
    // could not write, or empty.
    QString exportTo(const QDir& folder) const;
    static constexpr QSize kExportSize = kExportPictureSize;

    // As narrow as two charts a row: the grid reflows rather than pushing the
    // window off a small screen.
    QSize minimumSizeHint() const override;
    // How many charts share the top row now: 3, or 2 in a narrow board.
    int chartsPerRow() const;

    // No chart shorter than `pixels`: where the grid's shortest row would be
    // shorter, the focus view instead. 0: the grid whatever its rows' height.
    void setLeastPlotHeight(int pixels);
    bool showsFocusView() const { return focusView_; }
    // The charts the focus view offers, in the order of its buttons and of
    // Ctrl+1..6 (drift once measured).
    std::vector<QWidget*> focusChoices() const;
    // The chart the focus view shows large.
    QWidget* focusedChart() const { return gridOrder_[focused_]; }
    void focusChart(const QWidget* chart);
    // The next (+1) or previous (-1) of focusChoices, round the end.
    void focusNextChart(int step);

signals:
    void focusViewChanged(bool shown);

protected:
    void resizeEvent(QResizeEvent* event) override;
    // The legend's scroll area resized: fitLegend().
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    // Where each chart sits in one arrangement of the grid.
    struct Cell {
        int row, column, columns;
    };
    struct Arrangement {
        int chartsPerRow;
        int driftRow;  // the last row, which takes no room while drift is hidden
        // accuracy, loss, seconds, speedup, gap, drift
        std::array<Cell, 6> cells;
    };
    static const Arrangement kWide;
    static const Arrangement kWideTwoRows;
    static const Arrangement kNarrow;

    struct ShownRun {
        QString name;
        QColor color;
        int plannedEpochs = 0;
        int epochsDone = 0;
    };

    // Names `chart` and keeps it for the grid and the export as `name`.
    template <typename Chart>
    Chart* add(Chart* chart, const char* objectName, const char* exportName);
    // The width `arrangement` needs: its top row's charts at their minimum.
    int minimumWidth(const Arrangement& arrangement) const;
    // The grid or the focus view, whichever the board's size calls for now.
    void layOut();
    // layOut() even where the arrangement stays: the charts it shows changed.
    void layOutAnew();
    // Lays the charts out in a new grid as `arrangement` places them, or,
    // with `focus`, the focused chart alone with the others' buttons.
    void arrange(const Arrangement& arrangement, bool focus);
    // The height the grid of `arrangement` gives its shortest row in this board.
    int shortestRowHeight(const Arrangement& arrangement) const;
    // The buttons above the focus view, one a chart, and its keys.
    void addFocusBar();
    void addFocusKeys();
    void showDrift(bool shown);
    void remember(const dp::RunRecord& record, const QColor& color);
    void forget(const std::string& id);
    void showLegend();
    // The legend's area as tall as its lines, up to kLegendLinesShown of them.
    void fitLegend();
    // The x range every chart over epochs or seconds shows.
    void updateSharedXRange();
    void updateZoomButton();
    // The charts sharing the x range show `min` to `max`, `from` too.
    void linkXZoom(const RunChartView* from, double min, double max);
    // The loss smoothing's strength, shown while the loss is smoothed.
    void addSmoothingControl(QHBoxLayout* row);

    RunLegend* legend_;
    QScrollArea* legendScroll_;  // holds the legend
    int legendHolds_ = 0;        // LegendHolds alive: showLegend() waits for the last
    QPushButton* resetZoomButton_;
    QLabel* smoothingLabel_ = nullptr;
    QDoubleSpinBox* smoothingStrength_ = nullptr;
    QVBoxLayout* boardLayout_;  // the legend row above the grid
    QHBoxLayout* topRow_;       // the legend and its controls
    QWidget* focusBar_;         // the focus view's buttons, under the legend
    QButtonGroup* focusButtons_;  // ids: indexes in gridOrder_
    QGridLayout* grid_ = nullptr;
    const Arrangement* arrangement_ = nullptr;
    bool focusView_ = false;
    int leastPlotHeight_ = 0;
    std::size_t focused_ = 0;  // in gridOrder_
    bool driftMeasured_ = false;
    std::vector<QWidget*> gridOrder_;  // as Arrangement::cells lists them
    std::vector<std::pair<RunChartView*, QString>> charts_;  // with their export names
    std::vector<RunChartView*> sharedXCharts_;               // all but speedup
    std::vector<EpochMetricChart*> epochCharts_;             // told about every run's epochs
    EpochMetricChart* drift_;  // only the N-device runs of comparisons have a line here
    LossChart* loss_;
    SpeedupChart* speedup_;
    // Not a RunChartView (bars, not lines over a shared x): placed, scaled
    // and exported beside them.
    GapWaterfallChart* gap_;
    // The newest shown run's CPU use per device, beside the legend.
    DeviceUtilisationView* utilisation_;
    // The runs on the charts, by id: oldest first, as ids start with the time.
    std::map<std::string, ShownRun> shown_;
    XAxisMode mode_ = XAxisMode::epochs;
};
