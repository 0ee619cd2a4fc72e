#include "run_chart_view.h"

#include <QChart>
#include <QHash>
#include <QFontMetricsF>
#include <QGraphicsLayout>
#include <QGraphicsSimpleTextItem>
#include <QImage>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QMouseEvent>
#include <QPainter>
#include <QSvgGenerator>

#include <algorithm>
#include <cmath>
#include <limits>

#include "chart_axis.h"
#include "chart_navigator.h"
#include "chart_readout.h"

namespace {

constexpr double kLineWidth = 2;
constexpr double kMarkerDiameter = 8;
// Room above and below the data, as a fraction of its span.
constexpr double kYHeadroom = 0.05;
// Pixels per label the axes need before they crowd: a label and its gap.
constexpr double kPixelsPerXLabel = 80;
constexpr double kPixelsPerYLabel = 40;
constexpr int kMaxYLabels = 8;
// The chart's margins around its title, axes and legend.
constexpr QMargins kChartMargins(6, 4, 10, 4);
// Between the title and a style key beside it, and under the title's row.
constexpr double kHeaderGap = 12;
constexpr int kHeaderRowGap = 2;
// A faint line (the raw loss behind the smoothed one): its width and opacity.
constexpr double kFaintLineWidth = 1;
constexpr float kFaintAlpha = 0.3f;

// The dot drawn on each point: as an image (Qt's "light marker") rather than
// the series' own points, because Qt does not draw the points of a line that
// has only one (a 1-epoch run) and its dots have no outline. Drawn at four
// times its size so that it stays round in 2x exports.
QImage markerImage(const QColor& color, bool hollow)
{
    constexpr int kOversample = 4;
    const int side = int(kMarkerDiameter) * kOversample;
    QImage image(side, side, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    const double outline = 1.5 * kOversample;
    painter.setPen(QPen(hollow ? color : Qt::white, outline));
    painter.setBrush(hollow ? QColor(Qt::white) : color);
    painter.drawEllipse(QRectF(outline / 2, outline / 2, side - outline, side - outline));
    return image;
}

}  // namespace

RunChartView::RunChartView(const QString& title, const QString& valueName, QWidget* parent)
    : QChartView(parent),
      xAxis_(new ChartAxis),
      yAxis_(new ChartAxis),
      readout_(new ChartReadout),
      key_(new ChartKey),
      title_(new QGraphicsSimpleTextItem(title)),
      fullTitle_(title),
      valueName_(valueName),
      xReadoutFormat_(QStringLiteral("%1"))
{
    auto* chart = new QChart;
    // The plot gets the room: no frame of window colour around the chart.
    chart->layout()->setContentsMargins(0, 0, 0, 0);
    // The title is the view's own (placeTitle): QChart centres its title
    // over the whole chart, legend included, not over the plot.
    title_->setParentItem(chart);
    title_->setBrush(chart->titleBrush());
    chart->setBackgroundRoundness(0);
    chart->legend()->setShowToolTips(true);
    chart->legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);  // a line sample
    chart->addAxis(xAxis_, Qt::AlignBottom);
    chart->addAxis(yAxis_, Qt::AlignLeft);
    setChart(chart);
    connect(chart, &QChart::plotAreaChanged, this, [this] {
        placeTitle();
        placeKey();
    });
    scene()->addItem(readout_);
    scene()->addItem(key_);
    setRenderHint(QPainter::Antialiasing);
    setRenderHint(QPainter::SmoothPixmapTransform);  // the markers are scaled images
    viewport()->setMouseTracking(true);  // hover readout without a button down
    auto* navigator = new ChartNavigator(this, xAxis_, yAxis_);
    connect(navigator, &ChartNavigator::navigated, this, [this] {
        readout_->hide();
        setZoomed(true);
        emit xNavigated(xAxis_->min(), xAxis_->max());
    });
    connect(navigator, &ChartNavigator::resetRequested, this, [this] {
        resetZoom();
        emit zoomResetRequested();
    });
    // Small enough that at 1280x720 two rows of charts leave the runs table four rows.
    setMinimumSize(300, 110);
    baseFont_ = font();
    applyFonts();
    updateLegend(false);
    fitAxes();
}

RunChartView::~RunChartView() = default;

void RunChartView::setFontScale(double scale)
{
    fontScale_ = scale;
    applyFonts();
}

void RunChartView::applyFonts()
{
    QFont body = baseFont_;
    body.setPointSizeF(baseFont_.pointSizeF() * fontScale_);
    QFont title = body;
    title.setBold(true);
    // Enlarged text is large enough; a larger title would take the plot's room.
    if (fontScale_ <= 1)
        title.setPointSizeF(body.pointSizeF() * 1.1);
    title_->setFont(title);
    chart()->legend()->setFont(body);
    for (ChartAxis* axis : {xAxis_, yAxis_}) {
        axis->setLabelsFont(body);
        axis->setTitleFont(body);
    }
    readout_->setFont(body);
    key_->setFont(body);
    layOutHeader(chart()->size().width());
    updateTickCounts(size());
}

void RunChartView::updateTickCounts(QSizeF chartSize)
{
    const int xTicks = std::max(3, int(chartSize.width() / (kPixelsPerXLabel * fontScale_)));
    const int yTicks =
        std::clamp(int(chartSize.height() / (kPixelsPerYLabel * fontScale_)), 3, kMaxYLabels);
    xAxis_->setMaxTicks(xTicks);
    yAxis_->setMaxTicks(yTicks);
    if (!zoomed_)
        fitAxes();  // the ends of the axes round to the new ticks
}

void RunChartView::resizeEvent(QResizeEvent* event)
{
    QChartView::resizeEvent(event);
    layOutHeader(chart()->size().width());
    showXTitleIfRoom();
    updateTickCounts(size());
}

void RunChartView::showXTitleIfRoom()
{
    // A short chart (a 720-px screen) gives its plot the title's line: the
    // "x:" switch above the charts names the axis (else Qt elides it to "...").
    constexpr int kMinHeightForXTitle = 170;
    xAxis_->setTitleVisible(height() >= kMinHeightForXTitle);
}

const QLineSeries* RunChartView::lineOf(const QString& key) const
{
    const auto it = lines_.constFind(key);
    return it == lines_.cend() ? nullptr : it->series;
}

QLineSeries* RunChartView::line(const QString& key, const QString& runName, const QColor& color,
                                const LineStyle& style, const QString& valueName)
{
    auto it = lines_.find(key);
    if (it != lines_.end()) {
        it->runName = runName;
        it->series->setName(runName);
        return it->series;
    }
    auto* series = new QLineSeries;
    series->setName(runName);
    QColor lineColor = color;
    if (style.faint)
        lineColor.setAlphaF(kFaintAlpha);
    const double width = style.faint ? kFaintLineWidth : kLineWidth;
    QPen pen(lineColor, width, style.pen);
    pen.setCapStyle(Qt::RoundCap);
    series->setPen(pen);
    if (style.markers) {
        series->setLightMarker(markerImage(color, style.hollowMarkers));
        series->setMarkerSize(kMarkerDiameter);
    }
    chart()->addSeries(series);
    series->attachAxis(xAxis_);
    series->attachAxis(yAxis_);
    const Line& made = *lines_.insert(key, Line{series, {}, runKeyOf(key), runName, valueName, lineColor,
                                                width, style.namedInExport, !style.faint});
    applyVisibility(made);
    applyHighlight(made);
    // Unnamed, as updateLegend(false) leaves every line; only the new one's
    // markers are looked at (a pass over all lines for each new one was
    // quadratic in the lines).
    for (QLegendMarker* marker : chart()->legend()->markers(series))
        marker->setVisible(false);
    return series;
}

void RunChartView::setLinePoints(const QString& key, const QList<QPointF>& points)
{
    auto it = lines_.find(key);
    if (it == lines_.end())
        return;
    it->values = points;
    plot(*it);
}

void RunChartView::plot(Line& line)
{
    QList<QPointF> positions;
    positions.reserve(line.values.size());
    for (const QPointF& value : std::as_const(line.values)) {
        const double y = yAxis_->position(value.y());
        if (std::isfinite(y) && std::isfinite(value.x()))
            positions.append({value.x(), y});
    }
    // One replace, one repaint, however many points.
    line.series->replace(positions);
}

void RunChartView::setLineVisible(const QString& key, bool visible)
{
    if (const auto it = lines_.find(key); it != lines_.end()) {
        it->shown = visible;
        applyVisibility(*it);
        updateLegend(false);
    }
}

void RunChartView::setLineRun(const QString& key, const QString& runKey)
{
    if (const auto it = lines_.find(key); it != lines_.end()) {
        it->runKey = runKey;
        applyVisibility(*it);
        applyHighlight(*it);
        updateLegend(false);
    }
}

void RunChartView::applyVisibility(const Line& line)
{
    line.series->setVisible(line.shown && !hiddenRuns_.contains(line.runKey));
}

void RunChartView::removeLine(const QString& key)
{
    if (const auto it = lines_.constFind(key); it != lines_.cend()) {
        QLineSeries* series = it->series;
        lines_.erase(it);
        chart()->removeSeries(series);
        delete series;
        readout_->hide();  // it may point at the removed line
    }
}

QString RunChartView::runKeyOf(const QString& lineKey)
{
    return lineKey.section(QLatin1Char('/'), 0, 0);
}

void RunChartView::setRunHidden(const QString& runKey, bool hidden)
{
    if (hidden == hiddenRuns_.contains(runKey))
        return;
    if (hidden)
        hiddenRuns_.insert(runKey);
    else
        hiddenRuns_.remove(runKey);
    for (const Line& line : std::as_const(lines_)) {
        if (line.runKey == runKey)
            applyVisibility(line);
    }
    readout_->hide();  // it may point at a hidden line
    updateLegend(false);
    fitAxes();
}

void RunChartView::setHighlightedRun(const QString& runKey)
{
    highlightedRun_ = runKey;
    for (const Line& line : std::as_const(lines_))
        applyHighlight(line);
}

void RunChartView::applyHighlight(const Line& line)
{
    QPen pen = line.series->pen();
    QColor color = line.color;
    const bool own = line.runKey == highlightedRun_;
    pen.setWidthF(!highlightedRun_.isEmpty() && own ? 2 * line.width : line.width);
    if (!highlightedRun_.isEmpty() && !own)
        color.setAlphaF(0.25f * color.alphaF());
    pen.setColor(color);
    line.series->setPen(pen);
}

void RunChartView::setStyleKey(std::vector<ChartKey::Entry> entries)
{
    key_->setEntries(std::move(entries));
    layOutHeader(chart()->size().width());
}

QPen RunChartView::keyPen(Qt::PenStyle style, const QColor& color)
{
    return QPen(color, kLineWidth, style);
}

QString RunChartView::title() const
{
    return title_->text();
}

void RunChartView::layOutHeader(double width)
{
    // Outside the plot, the key hides no data (issue 31: the accuracy key
    // covered test-accuracy points); beside the title where both fit.
    const double room = width - kChartMargins.left() - kChartMargins.right();
    const QFontMetricsF titleMetrics(title_->font());
    const double titleWidth = titleMetrics.horizontalAdvance(fullTitle_);
    key_->setMaxWidth(room);
    keyBesideTitle_ = !key_->isVisible() || titleWidth + kHeaderGap + key_->fullWidth() <= room;
    double header = titleMetrics.height();
    if (key_->isVisible()) {
        const double keyHeight = key_->boundingRect().height();
        header = keyBesideTitle_ ? std::max(header, keyHeight) : header + kHeaderRowGap + keyHeight;
    }
    QMargins margins = kChartMargins;
    margins.setTop(margins.top() + int(std::ceil(header)) + kHeaderRowGap);
    if (chart()->margins() != margins)
        chart()->setMargins(margins);  // placed again when the plot area moves
    placeTitle();
    placeKey();
}

void RunChartView::placeTitle()
{
    // Centred over the plot, as far as the chart's width (and a key beside
    // it) lets it be; elided at the end, the whole title in its tooltip.
    const QRectF plot = chart()->plotArea();
    QRectF room = chart()->rect().marginsRemoved(kChartMargins.toMarginsF());
    if (key_->isVisible() && keyBesideTitle_)
        room.setRight(room.right() - key_->boundingRect().width() - kHeaderGap);
    const QFontMetricsF metrics(title_->font());
    title_->setText(metrics.elidedText(fullTitle_, Qt::ElideRight, room.width()));
    title_->setToolTip(title_->text() == fullTitle_ ? QString() : fullTitle_);
    const double width = metrics.horizontalAdvance(title_->text());
    const double left = std::clamp(plot.center().x() - width / 2, room.left(),
                                   std::max(room.left(), room.right() - width));
    title_->setPos(left, room.top());
}

void RunChartView::placeKey()
{
    if (!key_->isVisible())
        return;
    // Right-aligned with the plot, on the title's row or the one under it.
    const QRectF room = chart()->rect().marginsRemoved(kChartMargins.toMarginsF());
    const double width = key_->boundingRect().width();
    const double right = std::min(chart()->plotArea().right(), room.right());
    double top = room.top();
    if (!keyBesideTitle_)
        top += QFontMetricsF(title_->font()).height() + kHeaderRowGap;
    key_->setPos(chart()->mapToScene(QPointF(std::max(room.left(), right - width), top)));
}

QPointF RunChartView::drawnAt(QPointF position) const
{
    const QRectF area = chart()->plotArea();
    return {area.left() + (position.x() - xAxis_->min()) / (xAxis_->max() - xAxis_->min()) * area.width(),
            area.bottom() - (position.y() - yAxis_->min()) / (yAxis_->max() - yAxis_->min()) * area.height()};
}

void RunChartView::updateLegend(bool exporting)
{
    QLegend* legend = chart()->legend();
    bool any = false;
    QHash<const QAbstractSeries*, bool> namedByLine;
    for (const Line& line : std::as_const(lines_)) {
        const bool named = exporting && line.namedInExport && line.series->isVisible();
        namedByLine.insert(line.series, named);
        any = any || named;
    }
    // One pass over the markers: QLegend::markers(series) scans them all, so
    // asking it once per line took time in the square of the lines (a
    // thousand imported runs).
    for (QLegendMarker* marker : legend->markers())
        if (const auto line = namedByLine.constFind(marker->series()); line != namedByLine.cend())
            marker->setVisible(*line);
    // Beside the plot, a legend lists full names one under another; below
    // it, Qt squeezes them into one row and elides them.
    legend->setAlignment(Qt::AlignRight);
    legend->setVisible(any);
}

void RunChartView::setXTitle(const QString& title, const QString& readoutFormat)
{
    xAxis_->setTitleText(title);
    xReadoutFormat_ = readoutFormat;
}

void RunChartView::setXTitle(XAxisMode mode)
{
    switch (mode) {
    case XAxisMode::epochs: setXTitle(tr("epoch"), tr("epoch %1")); break;
    case XAxisMode::seconds: setXTitle(tr("training seconds"), tr("%1 s")); break;
    case XAxisMode::steps: setXTitle(tr("step"), tr("step %1")); break;
    }
}

void RunChartView::setWholeNumberX(bool wholeNumbers)
{
    xAxis_->setWholeNumberTicks(wholeNumbers);
}

void RunChartView::setYBounds(double min, double max)
{
    yAxis_->setBounds(min, max);
    fitAxes();
}

void RunChartView::setYAlwaysShown(double min, double max)
{
    yAlwaysShown_ = Span{min, max};
    fitAxes();
}

void RunChartView::setLogScaleY(bool log)
{
    if (log == yAxis_->isLogScale())
        return;
    yAxis_->setLogScale(log);
    for (Line& line : lines_)
        plot(line);
    readout_->hide();
    setZoomed(false);  // a zoomed range means other values on the other scale
    fitAxes();
}

bool RunChartView::isLogScaleY() const
{
    return yAxis_->isLogScale();
}

std::optional<RunChartView::Span> RunChartView::xExtent() const
{
    std::optional<Span> extent;
    for (const Line& line : lines_) {
        if (!line.series->isVisible())
            continue;
        for (const QPointF& value : line.values) {
            if (!std::isfinite(yAxis_->position(value.y())))
                continue;
            if (!extent)
                extent = Span{value.x(), value.x()};
            extent->min = std::min(extent->min, value.x());
            extent->max = std::max(extent->max, value.x());
        }
    }
    return extent;
}

void RunChartView::showXRange(double min, double max)
{
    xRange_ = {min, max};
    fitAxes();
}

void RunChartView::fitAxes()
{
    if (!zoomed_) {
        xAxis_->showPositions(xRange_.min, xRange_.max);
        double low = std::numeric_limits<double>::max();
        double high = std::numeric_limits<double>::lowest();
        for (const Line& line : std::as_const(lines_)) {
            if (!line.series->isVisible())
                continue;
            for (const QPointF& value : line.values) {
                if (std::isfinite(yAxis_->position(value.y()))) {
                    low = std::min(low, value.y());
                    high = std::max(high, value.y());
                }
            }
        }
        if (low > high)  // nothing shown: the axis' default range
            low = high = std::numeric_limits<double>::quiet_NaN();
        else if (yAlwaysShown_ && !yAxis_->isLogScale()) {
            low = std::min(low, yAlwaysShown_->min);
            high = std::max(high, yAlwaysShown_->max);
        }
        yAxis_->fit(low, high, kYHeadroom);
    }
    const std::optional<Span> extent = xExtent();
    const bool extentChanged = extent.has_value() != lastXExtent_.has_value()
            || (extent && (extent->min != lastXExtent_->min || extent->max != lastXExtent_->max));
    lastXExtent_ = extent;
    if (extentChanged)
        emit xExtentChanged();
}

void RunChartView::setZoomed(bool zoomed)
{
    if (zoomed_ == zoomed)
        return;
    zoomed_ = zoomed;
    emit zoomedChanged(zoomed);
}

void RunChartView::resetZoom()
{
    setZoomed(false);
    fitAxes();
}

void RunChartView::zoomX(double min, double max)
{
    readout_->hide();
    xAxis_->showPositions(min, max);
    setZoomed(true);
}

