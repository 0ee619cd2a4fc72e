#pragma once

#include <QColor>
#include <QImage>
#include <QStringList>
#include <QString>
#include <QWidget>

#include <algorithm>
#include <optional>
#include <vector>

#include "scaling/speedup_gap.h"

class QPainter;

// Where an N-device run's time goes (dp::speedup_gap), as a waterfall: a bar
// at the ideal seconds per epoch (the 1-device run's / N), then each part of
// the gap as a bar floating from where the last one ended (time lost rises,
// time saved falls), ending at the measured seconds per epoch. Each part is
// labelled with its seconds and its share of the time lost (the gap, unless
// a part saved time: that one is labelled "saved", never a negative share),
// the parts within the noise stand as one grey bar, the verdict is the
// caption, and hovering a bar says what to try. Without a comparison that
// kept step timings it says how to get one.
class GapWaterfallChart : public QWidget {
    Q_OBJECT

public:
    struct Bar {
        enum class Kind { ideal, part, measured };
        Kind kind = Kind::part;
        QString label;   // under the bar: "ideal", "all-reduce", ...
        QString name;    // in full, for the tooltip
        QString advice;  // a part's: what to try when it dominates
        double start = 0, end = 0;  // sec/epoch: the bar spans them (totals start at 0)
        double seconds = 0;         // a part's own, signed; a total's value
        double share = 0;           // a part's fraction of the time lost (dp::SpeedupGap::share)
        bool noise = false;         // the parts within the noise, pooled: grey

        double top() const { return std::max(start, end); }
        double bottom() const { return std::min(start, end); }
    };

    explicit GapWaterfallChart(QWidget* parent = nullptr);

    // The gap of `runName`'s comparison, its measured bar in `color`; none:
    // the empty state. Texts may name settings as the engine does ({bucket_mb}).
    void setGap(const std::optional<dp::SpeedupGap>& gap, const QString& runName = {},
                const QColor& color = {});
    bool hasGap() const { return !bars_.empty(); }
    // Whether the measured time is above the ideal: else there is no gap
    // for the parts to take shares of, and they are labelled in seconds.
    // A gap larger than the epochs' own spread (dp::SpeedupGap::within_noise):
    // shares of noise would say nothing.
    bool hasGapToSplit() const
    {
        return hasGap() && !withinNoise_ && bars_.back().seconds > bars_.front().seconds;
    }

    // ideal, the parts in order, measured.
    const std::vector<Bar>& bars() const { return bars_; }
    // The verdict under the plot; empty without a gap.
    QString caption() const { return caption_; }
    // What the chart says without a gap.
    static QString emptyText();
    // The seconds per epoch at the y axis's ends, at the chart's size now.
    double axisMinimum() const { return layout(rect(), scaledFont(fontScale_)).axisMin; }
    double axisMaximum() const { return layout(rect(), scaledFont(fontScale_)).axisMax; }

    // 1 is normal; presenter mode enlarges the text.
    void setFontScale(double scale);

    // The chart alone, `size` logical pixels large at `pixelRatio`, at normal
    // font size whatever its size on screen; and as SVG.
    QImage exportImage(QSize size, double pixelRatio) const;
    bool exportSvg(const QString& path, QSize size, const QString& title) const;

    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

private:
    // Where everything goes in `area`: computed alike for painting and for
    // the tooltips, so a hovered bar is the one drawn there.
    struct Layout {
        QRectF title, plot, names, caption;  // the y labels sit left of the plot
        QStringList captionLines;           // the verdict, wrapped; the last elided
        std::vector<QRectF> bars;           // in bars_' order
        double axisMin = 0, axisMax = 1, tickStep = 1;
        // Lines of numbers above and below the bars: 2 (seconds and share),
        // 1 (the share alone) or, in a plot too short for them, 0.
        int valueLines = 2;
        double yOf(double seconds) const;
    };

    Layout layout(const QRectF& area, const QFont& font) const;
    void paint(QPainter& painter, const QRectF& area, const QFont& font) const;
    // The y axis's grid lines, tick labels and lines.
    void paintAxis(QPainter& painter, const QRectF& area, const Layout& out, const QFont& font,
                   int tickDecimals) const;
    // Each bar, the step to the next, its value and its name.
    void paintBars(QPainter& painter, const QRectF& area, const Layout& out, const QFont& font,
                   int decimals) const;
    // `font` shrunk so that the bars' longest word fits a slot `slot` wide.
    QFont namesFont(const QFont& font, double slot) const;
    // The numbers by `bar`: its seconds, its share of the gap, or both.
    QString valueText(const Bar& bar, int decimals, bool secondsFit, bool fullValues) const;
    QFont scaledFont(double scale) const;
    // "Gap to the ideal speedup: <run>", shortened to fit `width`.
    QString title(const QFont& font, double width) const;

    std::vector<Bar> bars_;
    QString caption_;
    bool withinNoise_ = false;
    QString runName_;
    QColor color_;
    double fontScale_ = 1;
    // The font the scale applies to, as at construction: presenter mode
    // enlarges the window's fonts too, and scaling those again would double it.
    QFont baseFont_;
};
