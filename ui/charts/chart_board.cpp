#include "chart_board.h"

#include <QAction>
#include <QApplication>
#include <QButtonGroup>
#include <QDir>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QImage>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "chart_axis.h"
#include "device_utilisation_view.h"
#include "epoch_metric_chart.h"
#include "gap_waterfall_chart.h"
#include "loss_chart.h"
#include "run_legend.h"
#include "vocabulary.h"
#include "widget_image_export.h"

namespace {

// Room after the last epoch so that its dots show whole.
constexpr double kEpochMargin = 0.5;
// The legend's lines in view; more runs scroll in it rather than take the plots' height.
constexpr int kLegendLinesShown = 3;

bool measuresDrift(const dp::RunRecord& record)
{
    return !record.config.drift_from.empty()
            || std::any_of(record.epochs.begin(), record.epochs.end(),
                           [](const dp::EpochMetrics& e) { return !std::isnan(e.parameter_drift); });
}

}  // namespace

ChartBoard::ChartBoard(QWidget* parent)
    : QWidget(parent),
      legend_(new RunLegend),
      legendScroll_(new QScrollArea),
      resetZoomButton_(new QPushButton(tr("Reset zoom"))),
      boardLayout_(new QVBoxLayout(this)),
      topRow_(new QHBoxLayout),
      focusBar_(new QWidget),
      focusButtons_(new QButtonGroup(this)),
      gap_(new GapWaterfallChart),
      utilisation_(new DeviceUtilisationView)
{
    legend_->setObjectName(QStringLiteral("runLegend"));
    resetZoomButton_->setObjectName(QStringLiteral("resetZoomButton"));
    resetZoomButton_->setToolTip(tr("Show all the data on every chart again (or double-click a chart)"));
    resetZoomButton_->hide();
    connect(resetZoomButton_, &QPushButton::clicked, this, &ChartBoard::resetZoom);
    connect(legend_, &RunLegend::runHiddenChanged, this, [this](const QString& key, bool hidden) {
        for (const auto& [chart, name] : charts_)
            chart->setRunHidden(key, hidden);
        updateSharedXRange();
    });
    connect(legend_, &RunLegend::runHovered, this, [this](const QString& key) {
        for (const auto& [chart, name] : charts_)
            chart->setHighlightedRun(key);
    });
    legendScroll_->setObjectName(QStringLiteral("runLegendScroll"));
    legendScroll_->setWidget(legend_);
    legendScroll_->setWidgetResizable(true);
    legendScroll_->setFrameShape(QFrame::NoFrame);
    legendScroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    legendScroll_->installEventFilter(this);  // its height follows its width: fitLegend()
    legendScroll_->hide();
    topRow_->setContentsMargins(4, 0, 4, 0);
    topRow_->addWidget(legendScroll_, 1);
    utilisation_->setObjectName(QStringLiteral("deviceUtilisation"));
    topRow_->addWidget(utilisation_, 0, Qt::AlignTop);
    addSmoothingControl(topRow_);
    topRow_->addWidget(resetZoomButton_, 0, Qt::AlignTop);
    boardLayout_->setContentsMargins(0, 0, 0, 0);
    boardLayout_->setSpacing(2);
    boardLayout_->addLayout(topRow_);

    auto* accuracy = add(new EpochMetricChart(
                                 tr("Accuracy"),
                                 {{tr("test acc"), [](const dp::EpochMetrics& e) { return e.test_acc; }},
                                  {tr("train acc"),
                                   [](const dp::EpochMetrics& e) { return e.train_acc; },
                                   Qt::DashLine}}),
                         "accuracyChart", "accuracy");
    accuracy->setValueBounds(0, 1);
    accuracy->setValuesAlwaysShown(0, 1);  // as d2l's and MATLAB's monitor draw it
    epochCharts_.push_back(accuracy);
    loss_ = add(new LossChart, "lossChart", "training_loss");
    loss_->setSmoothingStrength(smoothingStrength_->value());
    auto* seconds = add(
            new EpochMetricChart(vocabulary::secondsPerEpochTitle(),
                                 {{tr("time"), [](const dp::EpochMetrics& e) { return e.seconds; }}}),
            "secondsChart", "seconds_per_epoch");
    seconds->setValueText(vocabulary::secondsPerEpoch);  // "time 5.12 s/epoch"
    seconds->setValuesAlwaysShown(0, 0);  // from 0: 5.1 -> 4.4 s is not a collapse
    epochCharts_.push_back(seconds);
    speedup_ = add(new SpeedupChart, "speedupChart", "speedup");
    gap_->setObjectName(QStringLiteral("gapWaterfallChart"));
    gridOrder_.push_back(gap_);
    drift_ = add(new EpochMetricChart(
                         tr("N devices vs 1: parameter drift ‖θN − θ1‖ / ‖θ1‖"),
                         {{tr("drift"), [](const dp::EpochMetrics& e) { return e.parameter_drift; }}}),
                 "driftChart", "parameter_drift");
    drift_->setLogScaleY(true);  // from 1e-9 to 1e-3
    drift_->setToolTip(
            tr("After each epoch, how far the N-device run's parameters are from its 1-device "
               "twin's, relative to their size (same seed, same global batch). Data "
               "parallelism computes the same update, so only float rounding tells them apart; "
               "training amplifies rounding as it leaves a plateau, as much as between two "
               "1-device runs whose kernels round differently."));
    addFocusBar();
    addFocusKeys();
    arrange(kWide, false);  // drift hidden until a comparison measures it

    for (const auto& [chart, name] : charts_) {
        connect(chart, &RunChartView::zoomedChanged, this, &ChartBoard::updateZoomButton);
        if (chart != speedup_) {
            sharedXCharts_.push_back(chart);
            connect(chart, &RunChartView::xExtentChanged, this, &ChartBoard::updateSharedXRange);
            connect(chart, &RunChartView::xNavigated, this,
                    [this, chart](double min, double max) { linkXZoom(chart, min, max); });
            connect(chart, &RunChartView::zoomResetRequested, this, &ChartBoard::resetZoom);
        }
    }
    updateSharedXRange();
}

const QString ChartBoard::kSmoothingStrengthKey = QStringLiteral("view/loss_smoothing_strength");

void ChartBoard::addSmoothingControl(QHBoxLayout* row)
{
    smoothingLabel_ = new QLabel(tr("Smoothing"));
    smoothingStrength_ = new QDoubleSpinBox;
    smoothingStrength_->setObjectName(QStringLiteral("smoothingStrength"));
    smoothingStrength_->setRange(0, 0.99);
    smoothingStrength_->setSingleStep(0.05);
    smoothingStrength_->setDecimals(2);
    smoothingStrength_->setToolTip(
            tr("How much each point of the smoothed loss keeps of the points before it: "
               "0 draws the raw loss, 0.99 the smoothest line"));
    smoothingLabel_->setBuddy(smoothingStrength_);
    const double remembered =
            QSettings().value(kSmoothingStrengthKey, LossChart::kDefaultSmoothingStrength).toDouble();
    smoothingStrength_->setValue(remembered);
    connect(smoothingStrength_, &QDoubleSpinBox::valueChanged, this, [this](double strength) {
        loss_->setSmoothingStrength(strength);
        QSettings().setValue(kSmoothingStrengthKey, strength);
    });
    row->addWidget(smoothingLabel_, 0, Qt::AlignTop);
    row->addWidget(smoothingStrength_, 0, Qt::AlignTop);
    smoothingLabel_->hide();  // until the loss is smoothed
    smoothingStrength_->hide();
}

void ChartBoard::linkXZoom(const RunChartView* from, double min, double max)
{
    for (RunChartView* chart : sharedXCharts_) {
        if (chart != from)
            chart->zoomX(min, max);
    }
}

template <typename Chart>
Chart* ChartBoard::add(Chart* chart, const char* objectName, const char* exportName)
{
    chart->setObjectName(QLatin1String(objectName));
    gridOrder_.push_back(chart);
    charts_.emplace_back(chart, QLatin1String(exportName));
    return chart;
}

// What each run measures on top; how the runs scale under it (the speedup,
// and where an N-device run's time goes: a waterfall of eight labelled bars,
// which needs the wider cell), drift at the bottom. Six columns: three charts
// a row above, two below.
const ChartBoard::Arrangement ChartBoard::kWide{
        3, 2, {{{0, 0, 2}, {0, 2, 2}, {0, 4, 2}, {1, 0, 3}, {1, 3, 3}, {2, 0, 6}}}};
// Once drift is measured on a board too short for three rows (a 1920x1080
// window after a comparison): two rows of three, drift beside the waterfall.
const ChartBoard::Arrangement ChartBoard::kWideTwoRows{
        3, 1, {{{0, 0, 2}, {0, 2, 2}, {0, 4, 2}, {1, 0, 2}, {1, 2, 2}, {1, 4, 2}}}};
// Two a row: accuracy and loss, seconds and speedup, then the waterfall and
// drift across the board.
const ChartBoard::Arrangement ChartBoard::kNarrow{
        2, 3, {{{0, 0, 1}, {0, 1, 1}, {1, 0, 1}, {1, 1, 1}, {2, 0, 2}, {3, 0, 2}}}};

void ChartBoard::arrange(const Arrangement& arrangement, bool focus)
{
    if (arrangement_ == &arrangement && focusView_ == focus)
        return;
    const bool focusChanged = focusView_ != focus;
    arrangement_ = &arrangement;
    focusView_ = focus;
    delete grid_;  // its items only: the charts belong to the board
    grid_ = new QGridLayout;
    grid_->setContentsMargins(0, 0, 0, 0);
    grid_->setSpacing(2);
    if (focus) {
        // One chart, at least as tall as asked (the page scrolls rather than squeeze it).
        QWidget* shown = gridOrder_[focused_];
        grid_->addWidget(shown, 0, 0);
        grid_->setRowMinimumHeight(0, leastPlotHeight_);
        grid_->setRowStretch(0, 1);
        for (QWidget* chart : gridOrder_)
            chart->setVisible(chart == shown);
        focusButtons_->button(int(focused_))->setChecked(true);
    } else {
        int columns = 0;
        for (std::size_t i = 0; i < gridOrder_.size(); ++i) {
            const Cell& cell = arrangement.cells[i];
            grid_->addWidget(gridOrder_[i], cell.row, cell.column, 1, cell.columns);
            gridOrder_[i]->setVisible(gridOrder_[i] != drift_ || driftMeasured_);
            columns = std::max(columns, cell.column + cell.columns);
        }
        for (int row = 0; row < arrangement.driftRow; ++row)
            grid_->setRowStretch(row, 3);
        grid_->setRowStretch(arrangement.driftRow, driftMeasured_ ? 2 : 0);  // a hidden row takes no room
        for (int column = 0; column < columns; ++column)
            grid_->setColumnStretch(column, 1);
    }
    focusBar_->setVisible(focus);
    boardLayout_->addLayout(grid_, 1);
    if (focusChanged)
        emit focusViewChanged(focus);
}

int ChartBoard::shortestRowHeight(const Arrangement& arrangement) const
{
    // The grid's rows share what the legend's row leaves by their stretch:
    // 3 each, 2 for drift's (the row to fit, once drift is measured).
    const int legendHeight = topRow_->hasHeightForWidth() ? topRow_->heightForWidth(width())
                                                          : topRow_->sizeHint().height();
    const int rows = arrangement.driftRow + (driftMeasured_ ? 1 : 0);
    const int gridHeight = height() - legendHeight - boardLayout_->spacing() - (rows - 1) * grid_->spacing();
    const int stretches = 3 * arrangement.driftRow + (driftMeasured_ ? 2 : 0);
    return gridHeight * (driftMeasured_ ? 2 : 3) / stretches;
}

void ChartBoard::layOutAnew()
{
    arrangement_ = nullptr;
    layOut();
}

void ChartBoard::layOut()
{
    const bool wide = width() >= minimumWidth(kWide);
    const Arrangement& grid = wide ? kWide : kNarrow;
    const auto tooShort = [this](const Arrangement& arrangement) {
        return leastPlotHeight_ > 0 && shortestRowHeight(arrangement) < leastPlotHeight_;
    };
    // Every chart in view while they can be tall enough: drift's row folded
    // into the one above before the focus view takes over.
    if (tooShort(grid) && wide && driftMeasured_ && !tooShort(kWideTwoRows))
        arrange(kWideTwoRows, false);
    else
        arrange(grid, tooShort(grid));
}

void ChartBoard::setLeastPlotHeight(int pixels)
{
    if (leastPlotHeight_ == pixels)
        return;
    leastPlotHeight_ = pixels;
    layOutAnew();  // the focused chart's least height changes with it
}

int ChartBoard::minimumWidth(const Arrangement& arrangement) const
{
    int chartWidth = 0;
    for (const QWidget* chart : gridOrder_)
        chartWidth = std::max({chartWidth, chart->minimumWidth(), chart->minimumSizeHint().width()});
    return arrangement.chartsPerRow * chartWidth + (arrangement.chartsPerRow - 1) * grid_->spacing();
}

QSize ChartBoard::minimumSizeHint() const
{
    return {minimumWidth(kNarrow), QWidget::minimumSizeHint().height()};
}

int ChartBoard::chartsPerRow() const
{
    return arrangement_->chartsPerRow;
}

void ChartBoard::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    layOut();
}

void ChartBoard::startRun(const dp::RunRecord& record, const QColor& color)
{
    updateRun(record, color);
    loss_->startRun(record, color);
}

void ChartBoard::updateRun(const dp::RunRecord& record, const QColor& color)
{
    remember(record, color);
    for (EpochMetricChart* chart : epochCharts_)
        chart->showRun(record, color);
    loss_->showTestLosses(record, color);
    if (measuresDrift(record)) {
        drift_->showRun(record, color);
        showDrift(true);
    }
    updateSharedXRange();
}

void ChartBoard::setRunVisible(const dp::RunRecord& record, const QColor& color, bool visible)
{
    if (visible) {
        updateRun(record, color);
        loss_->showEpochLosses(record, color);
    } else {
        forget(record.id);
        for (EpochMetricChart* chart : epochCharts_)
            chart->hideRun(record.id);
        drift_->hideRun(record.id);
        showDrift(drift_->runCount() > 0);
    }
    loss_->setRunVisible(record.id, visible);
    updateSharedXRange();
}

void ChartBoard::removeRun(const std::string& id)
{
    forget(id);
    for (EpochMetricChart* chart : epochCharts_)
        chart->hideRun(id);
    drift_->hideRun(id);
    showDrift(drift_->runCount() > 0);
    loss_->removeRun(id);
    updateSharedXRange();
}

void ChartBoard::remember(const dp::RunRecord& record, const QColor& color)
{
    shown_[record.id] = {QString::fromStdString(record.label()), color, record.config.epochs,
                         int(record.epochs.size())};
    utilisation_->showRun(record, color);
    showLegend();
}

void ChartBoard::forget(const std::string& id)
{
    shown_.erase(id);
    utilisation_->forgetRun(id);
    // Hidden from the legend ends with its entry: checked again, the run shows.
    for (const auto& [chart, name] : charts_)
        chart->setRunHidden(QString::fromStdString(id), false);
    showLegend();
}

ChartBoard::LegendHold::LegendHold(ChartBoard& board) : board_(board)
{
    ++board_.legendHolds_;
}

ChartBoard::LegendHold::~LegendHold()
{
    if (--board_.legendHolds_ == 0) {
        board_.showLegend();
        board_.updateSharedXRange();
    }
}

void ChartBoard::showLegend()
{
    if (legendHolds_ > 0)
        return;
    std::vector<RunLegend::Entry> entries;
    for (const auto& [id, run] : shown_)
        entries.push_back({QString::fromStdString(id), run.name, run.color});
    legend_->setEntries(entries);
    fitLegend();
}

void ChartBoard::fitLegend()
{
    legendScroll_->setVisible(!legend_->entries().empty());
    if (legend_->entries().empty())
        return;
    // The utilisation view gives way where the legend would not fit beside
    // it (a narrow board, presenter mode's large font): the runs' names come
    // first. The room is the legend's and the view's together, so the
    // decision stands whichever of the two it leaves shown.
    const int spacing = topRow_->spacing();
    const int room = legendScroll_->width() + (utilisation_->isVisible() ? utilisation_->width() + spacing : 0);
    utilisation_->setRoom(room >= legend_->minimumSizeHint().width()
                                      + legendScroll_->verticalScrollBar()->sizeHint().width()
                                      + spacing + utilisation_->sizeHint().width());
    const int width = legendScroll_->width();
    // A line's height as the legend draws it (its swatches are taller than the text).
    const int cap = kLegendLinesShown * legend_->heightForWidth(QWIDGETSIZE_MAX);
    int wanted = legend_->heightForWidth(width);
    if (wanted > cap)  // beside the scroll bar it shows
        wanted = legend_->heightForWidth(width - legendScroll_->verticalScrollBar()->sizeHint().width());
    legendScroll_->setFixedHeight(std::min(wanted, cap));
}

bool ChartBoard::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == legendScroll_ && event->type() == QEvent::Resize)
        fitLegend();
    return QWidget::eventFilter(watched, event);
}

void ChartBoard::updateSharedXRange()
{
    if (legendHolds_ > 0)  // it reads every chart's lines: once, when the hold ends
        return;
    double last = 0;  // the furthest x any shown run reaches or plans to
    for (const RunChartView* chart : sharedXCharts_) {
        if (const std::optional<RunChartView::Span> extent = chart->xExtent())
            last = std::max(last, extent->max);
    }
    if (mode_ == XAxisMode::epochs) {
        // A run's planned epochs from its start, so the axis does not jump as it trains.
        int epochs = 1;
        for (const auto& [id, run] : shown_)
            epochs = std::max({epochs, run.plannedEpochs, run.epochsDone});
        last = std::max(last, double(epochs));
        for (RunChartView* chart : sharedXCharts_)
            chart->showXRange(0, std::ceil(last) + kEpochMargin);
    } else {
        // Seconds are known as they pass: the range grows to the next round
        // number, the same for every chart whatever its width.
        constexpr int kRoundings = 10;
        const double reach = last > 0 ? last * 1.02 : 1;
        const double step = ChartAxis::niceStep(reach, kRoundings);
        for (RunChartView* chart : sharedXCharts_)
            chart->showXRange(0, std::ceil(reach / step) * step);
    }
}

void ChartBoard::showDrift(bool shown)
{
    if (driftMeasured_ == shown)
        return;
    driftMeasured_ = shown;
    focusButtons_->button(int(gridOrder_.size() - 1))->setVisible(shown);
    if (!shown && gridOrder_[focused_] == drift_)
        focused_ = 0;
    layOutAnew();  // a grid with or without the drift row
}

void ChartBoard::setSpeedupMeasurements(std::vector<SpeedupChart::Measurement> measurements)
{
    speedup_->setMeasurements(std::move(measurements));
}

void ChartBoard::setSpeedupGap(const std::optional<dp::SpeedupGap>& gap, const QString& runName,
                               const QColor& color)
{
    gap_->setGap(gap, runName, color);
}

void ChartBoard::setXAxisMode(XAxisMode mode)
{
    mode_ = mode;
    for (EpochMetricChart* chart : epochCharts_)
        chart->setXAxisMode(mode);
    drift_->setXAxisMode(mode);
    loss_->setXAxisMode(mode);
    updateSharedXRange();
}

void ChartBoard::setSmoothedLoss(bool smoothed)
{
    loss_->setSmoothed(smoothed);
    smoothingLabel_->setVisible(smoothed);
    smoothingStrength_->setVisible(smoothed);
}

void ChartBoard::setLogScaleLoss(bool log)
{
    loss_->setLogScaleY(log);
}

void ChartBoard::setFontScale(double scale, double screenGrowth)
{
    for (const auto& [chart, name] : charts_)
        chart->setFontScale(scale);
    gap_->setFontScale(scale);
    // The legend and the CPU view: enlarged half as much as the charts, or a
    // dozen full run names would take the rows the plots need on a 720-line
    // projector; but as much as the screen grows, which grows those rows too.
    const double sideScale = (1 + (scale / screenGrowth - 1) / 2) * screenGrowth;
    utilisation_->setFontScale(sideScale);
    QFont legendFont = QApplication::font();
    legendFont.setPointSizeF(legendFont.pointSizeF() * sideScale);
    legend_->setFont(legendFont);
    fitLegend();
}

void ChartBoard::resetZoom()
{
    for (const auto& [chart, name] : charts_)
        chart->resetZoom();
}

void ChartBoard::updateZoomButton()
{
    resetZoomButton_->setVisible(std::any_of(charts_.begin(), charts_.end(),
                                             [](const auto& chart) { return chart.first->isZoomed(); }));
}

void ChartBoard::refreshNow()
{
    loss_->refreshNow();
}

QString ChartBoard::exportTo(const QDir& folder) const
{
    loss_->refreshNow();
    for (const auto& [chart, name] : charts_) {
        if (chart == drift_ && drift_->runCount() == 0)
            continue;  // an empty plot says nothing: drift is measured by comparisons only
        const QString png = folder.filePath(name + QStringLiteral(".png"));
        const QString svg = folder.filePath(name + QStringLiteral(".svg"));
        if (!chart->exportImage(kExportSize, kExportPixelRatio).save(png, "PNG"))
            return png;
        if (!chart->exportSvg(svg, kExportSize, name))
            return svg;
    }
    const QString png = folder.filePath(QStringLiteral("speedup_gap.png"));
    const QString svg = folder.filePath(QStringLiteral("speedup_gap.svg"));
    if (!gap_->exportImage(kExportSize, kExportPixelRatio).save(png, "PNG"))
        return png;
    if (!gap_->exportSvg(svg, kExportSize, QStringLiteral("speedup_gap")))
        return svg;
    return {};
}
