#pragma once

#include <QChartView>
#include <QColor>
#include <QHash>
#include <QList>
#include <QPointF>
#include <QSet>

#include <optional>
#include <vector>

#include "chart_key.h"
#include "x_axis_mode.h"

class ChartAxis;
class ChartReadout;
class QGraphicsSimpleTextItem;
class QLineSeries;

// A chart with a title, round-numbered axes and one line per key (a run, a
// run's train accuracy, a comparison group). Subclasses fill the lines with
// data values; this plots them on a linear or log y scale, keeps the axes
// around the data (x: the range its owner gives, shared by the charts of a
// board), and makes the chart explorable as TensorBoard's and W&B's are:
// hovering reads out every line's value at the x under the mouse, and it
// zooms and pans (ChartNavigator); while zoomed, new data leave the view where
// the user put it, until a double-click or resetZoom().
// Runs are told apart by the board's shared legend; on screen a chart's own
// key only explains line styles, above the plot beside the title (never over
// the data), and exported pictures list the runs too.
class RunChartView : public QChartView {
    Q_OBJECT

public:
    // `valueName` names the y values in the hover readout ("loss").
    RunChartView(const QString& title, const QString& valueName, QWidget* parent = nullptr);
    ~RunChartView() override;

    // 1 is normal; presenter mode enlarges titles, labels and the readout.
    void setFontScale(double scale);

    // The line of `key`; null if it has none. Its points are plotted
    // positions: log10 of the values on a log scale.
    const QLineSeries* lineOf(const QString& key) const;
    int lineCount() const { return int(lines_.size()); }

    struct Span {
        double min = 0, max = 0;
    };
    // The x values of the shown lines' points; none while no point is shown.
    std::optional<Span> xExtent() const;
    // The x range shown when not zoomed.
    void showXRange(double min, double max);

    void setLogScaleY(bool log);
    bool isLogScaleY() const;

    // How the readout writes a value ("0.73×", "5.12 s/epoch" from
    // vocabulary.h); a number of four digits unless set.
    void setValueText(QString (*text)(double)) { valueText_ = text; }

    bool isZoomed() const { return zoomed_; }
    void resetZoom();
    // Shows x from `min` to `max` as if the user had zoomed there (another
    // chart's zoom, linked); y keeps its range.
    void zoomX(double min, double max);

    // The board legend's choices, by run key (a line's key, or the part of
    // it before '/': a run's second line; or the run setLineRun names): a
    // hidden run's lines are not drawn, however its chart shows or hides them
    // (setLineVisible), and stay hidden until shown here; while a run is
    // highlighted (not empty) its lines are drawn thicker and the others faded.
    void setRunHidden(const QString& runKey, bool hidden);
    void setHighlightedRun(const QString& runKey);

    // What the readout shows with the mouse at `viewPos`: the x, then each
    // line's point nearest that x (within reach of it), highest value first;
    // empty if no point is within reach. The shown one, or empty when hidden.
    QString readoutAt(QPoint viewPos) const;
    QString shownReadout() const;

    // The chart alone as a picture `size` logical pixels large at
    // `pixelRatio`, whatever its size on screen: normal fonts, every line's
    // full name in a legend beside the plot.
    QImage exportImage(QSize size, double pixelRatio);
    bool exportSvg(const QString& path, QSize size, const QString& title);
    // Where the plot sat in the last exported picture, in its coordinates.
    QRectF exportedPlotArea() const { return exportedPlotArea_; }

    // The chart's title, as shown (elided where the chart is narrow).
    QString title() const;
    // What the line styles mean (setStyleKey), hidden while it has no entries.
    const ChartKey* styleKey() const { return key_; }

signals:
    // The x values of the shown points reach further (or less far) than before.
    void xExtentChanged();
    void zoomedChanged(bool zoomed);
    // The user zoomed or panned to show x from `min` to `max`.
    void xNavigated(double min, double max);
    // The user asked for everything again (a double-click).
    void zoomResetRequested();

protected:
    struct LineStyle {
        Qt::PenStyle pen = Qt::SolidLine;
        bool markers = false;        // a dot on every point (per-epoch values)
        bool hollowMarkers = false;  // rings rather than dots (train accuracy)
        // Named in an exported picture's legend (which, unlike the screen,
        // has no board legend beside it); a run's second line is not.
        bool namedInExport = true;
        // Thin and pale behind the others (the raw loss under the smoothed
        // one), and not read out.
        bool faint = false;
    };

    // The line of `key`, made if new: `runName` in the readout and legend,
    // `valueName` overriding the chart's in the readout when not empty.
    QLineSeries* line(const QString& key, const QString& runName, const QColor& color,
                      const LineStyle& style, const QString& valueName = {});
    QLineSeries* line(const QString& key, const QString& runName, const QColor& color)
    {
        return line(key, runName, color, LineStyle{});
    }
    bool hasLine(const QString& key) const { return lines_.contains(key); }
    // The line's data values (plotted as positions on the y scale).
    void setLinePoints(const QString& key, const QList<QPointF>& points);
    // Whether the chart draws the line, when the legend has not hidden its run.
    void setLineVisible(const QString& key, bool visible);
    // The run whose legend entry hides and highlights the line, where that is
    // not the run its key names (a seed group's lines answer to a member).
    void setLineRun(const QString& key, const QString& runKey);
    void removeLine(const QString& key);
    QStringList lineKeys() const { return lines_.keys(); }
    // What the line styles mean, above the plot: right of the title where
    // both fit, else on a row of its own, elided at the end.
    void setStyleKey(std::vector<ChartKey::Entry> entries);
    // A pen for style key samples, like the lines' pens.
    static QPen keyPen(Qt::PenStyle style, const QColor& color = QColor(0x50, 0x50, 0x50));

    void setValueName(const QString& name) { valueName_ = name; }
    // The x axis' title, and how the readout says an x ("epoch %1").
    void setXTitle(const QString& title, const QString& readoutFormat);
    // "epoch" or "training seconds".
    void setXTitle(XAxisMode mode);
    void setWholeNumberX(bool wholeNumbers);
    // Values y never goes past (accuracy stays within [0, 1]).
    void setYBounds(double min, double max);
    // Values the fitted y axis always shows, whatever the data (accuracy:
    // [0, 1], so chance-level noise does not fill the plot as a climb;
    // seconds: from 0). Zooming still goes closer.
    void setYAlwaysShown(double min, double max);

    // Fits y to the shown points and x to its range, unless zoomed.
    void fitAxes();

    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    struct Line {
        QLineSeries* series = nullptr;
        QList<QPointF> values;  // as given, before the y scale
        QString runKey;  // the legend's: runKeyOf(key) unless setLineRun
        QString runName;
        QString valueName;
        QColor color;  // faint lines' paler
        double width = 0;
        bool namedInExport = true;
        bool readOut = true;
        bool shown = true;  // setLineVisible
    };
    struct Reading {
        const Line* line;
        QPointF value;     // data values
        QPointF position;  // in the scene
    };

    void plot(Line& line);
    static QString runKeyOf(const QString& lineKey);
    // Drawn: shown by the chart and its run not hidden by the legend.
    void applyVisibility(const Line& line);
    // The line's pen for the highlighted run: thicker if its own, faded if another's.
    void applyHighlight(const Line& line);
    void applyFonts();
    // The x axis' title where the chart on screen is tall enough for it.
    void showXTitleIfRoom();
    // The legend lists the runs only in exports.
    void updateLegend(bool exporting);
    // The title and the style key above the plot, the chart's top margin
    // theirs, for a chart `width` wide.
    void layOutHeader(double width);
    void placeTitle();
    void placeKey();
    // Where a plotted position is drawn, in chart coordinates.
    QPointF drawnAt(QPointF position) const;
    // Labels as many as `chartSize` has room for.
    void updateTickCounts(QSizeF chartSize);
    // Each read-out line's point nearest the x of `scenePos`, within reach of
    // it, highest value first.
    std::vector<Reading> readingsAt(QPointF scenePos) const;
    // The x they are read at, as the readout's first line says it.
    QString readoutHeader(const std::vector<Reading>& readings, QPointF scenePos) const;
    // "test acc 0.61": what a reading's line measures, and its value.
    QString readoutValue(const Reading& reading) const;
    void hoverAt(QPointF scenePos);
    void setZoomed(bool zoomed);
    // Lays the chart out at `size` with export fonts and legend, calls
    // `render`, then puts it back as it was on screen.
    template <typename Render>
    void renderExport(QSize size, Render render);

    ChartAxis* xAxis_;
    ChartAxis* yAxis_;
    ChartReadout* readout_;
    ChartKey* key_;
    QGraphicsSimpleTextItem* title_;
    QString fullTitle_;
    bool keyBesideTitle_ = true;  // else on a row of its own under it
    QHash<QString, Line> lines_;
    QString valueName_;
    QString (*valueText_)(double) = nullptr;
    QString xReadoutFormat_;
    double fontScale_ = 1;
    QFont baseFont_;
    Span xRange_{0, 1};
    std::optional<Span> lastXExtent_;
    std::optional<Span> yAlwaysShown_;  // setYAlwaysShown
    QRectF exportedPlotArea_;
    bool zoomed_ = false;
    QSet<QString> hiddenRuns_;  // setRunHidden
    QString highlightedRun_;    // setHighlightedRun
};
