#include "gap_waterfall_chart.h"

#include <QEvent>
#include <QFontMetricsF>
#include <QHelpEvent>
#include <QPainter>
#include <QTextLayout>
#include <QSvgGenerator>
#include <QToolTip>

#include <algorithm>
#include <cmath>

#include "chart_axis.h"
#include "engine_message.h"
#include "run_palette.h"
#include "vocabulary.h"

namespace {

constexpr double kMargin = 6;
// A bar's width as a fraction of its slot.
constexpr double kBarFraction = 0.62;

// A part's colour: warm when it costs time, green when it saves some, grey
// when it cannot be told from noise.
QColor partColor(const GapWaterfallChart::Bar& bar)
{
    if (bar.noise)
        return QColor(0x9e, 0x9e, 0x9e);
    return bar.seconds >= 0 ? QColor(0xd6, 0x4f, 0x3c) : QColor(0x2e, 0x8b, 0x57);
}

// "0.029 s"; a value that rounds to nothing is "0.000 s", never "-0.000 s".
QString secondsText(double seconds, int decimals)
{
    const double unit = std::pow(10.0, -decimals);
    if (std::abs(seconds) < unit / 2)
        seconds = 0;
    return GapWaterfallChart::tr("%1 s").arg(seconds, 0, 'f', decimals);
}

// "44%"; a share that rounds to nothing is "0%", never "-0%".
QString percentText(double share)
{
    const double percent = std::round(share * 100);
    return QStringLiteral("%1%").arg(percent == 0 ? 0.0 : percent, 0, 'f', 0);
}

// Enough decimals for the tick step to show (0.05 s: 2).
int decimalsFor(double step)
{
    return std::clamp(int(std::ceil(-std::log10(step) - 1e-9)), 0, 4);
}

// `text` broken into lines of at most `width` at word (and hyphen) breaks,
// at most `maxLines` of them, the last elided if the text goes on (and any
// word longer than a line elided too).
QStringList wrapped(const QString& text, const QFont& font, double width, int maxLines)
{
    const QFontMetricsF metrics(font);
    QStringList lines;
    QTextLayout layout(text, font);
    layout.beginLayout();
    for (QTextLine line = layout.createLine(); line.isValid(); line = layout.createLine()) {
        line.setLineWidth(width);
        const bool last = int(lines.size()) + 1 == maxLines;
        const QString shown = last ? text.mid(line.textStart())
                                   : text.mid(line.textStart(), line.textLength());
        lines << metrics.elidedText(shown.trimmed(), Qt::ElideRight, width);
        if (last)
            break;
    }
    layout.endLayout();
    return lines;
}

}  // namespace

GapWaterfallChart::GapWaterfallChart(QWidget* parent) : QWidget(parent), baseFont_(font())
{
    setAttribute(Qt::WA_OpaquePaintEvent);
    setAutoFillBackground(false);
}

QString GapWaterfallChart::emptyText()
{
    return tr("Compare 1 vs N to see where the time goes");
}

QSize GapWaterfallChart::minimumSizeHint() const
{
    return {200, 150};
}

void GapWaterfallChart::setGap(const std::optional<dp::SpeedupGap>& gap, const QString& runName,
                               const QColor& color)
{
    bars_.clear();
    caption_.clear();
    withinNoise_ = gap && gap->within_noise();
    runName_ = runName;
    color_ = color.isValid() ? color : runColor(1);
    if (gap) {
        bars_.push_back({Bar::Kind::ideal, tr("ideal"),
                         tr("ideal: 1 device's seconds per epoch / %1").arg(gap->devices), {}, 0,
                         gap->ideal, gap->ideal, 0});
        double reached = gap->ideal;
        for (const dp::GapPart& part : gap->parts) {
            bars_.push_back({Bar::Kind::part, QString::fromStdString(part.short_name),
                             QString::fromStdString(part.name), engineMessage(part.advice),
                             reached, reached + part.seconds, part.seconds, gap->share(part), part.noise});
            reached += part.seconds;
        }
        // Ends where the parts do, which is the measured time: they add up to the gap.
        bars_.push_back({Bar::Kind::measured, tr("measured"),
                         tr("measured on %1 devices").arg(gap->devices), {}, 0, gap->measured,
                         gap->measured, 0});
        caption_ = engineMessage(gap->verdict());
    }
    setToolTip(bars_.empty() ? tr("Check a Compare 1 vs N pair (a 1-device run and its N-device "
                                  "run) to split the N-device run's gap to the ideal speedup "
                                  "into its parts")
                             : QString());
    update();
}

void GapWaterfallChart::setFontScale(double scale)
{
    fontScale_ = scale;
    updateGeometry();
    update();
}

QFont GapWaterfallChart::scaledFont(double scale) const
{
    QFont font = baseFont_;
    font.setPointSizeF(font.pointSizeF() * scale);
    return font;
}

QString GapWaterfallChart::title(const QFont& font, double width) const
{
    if (runName_.isEmpty() || bars_.empty())
        return tr("Gap to the ideal speedup");
    // The run's name matters more than the words before it.
    const QFontMetricsF metrics(font);
    const QString full = tr("Gap to the ideal speedup: %1").arg(runName_);
    if (metrics.horizontalAdvance(full) <= width)
        return full;
    return metrics.elidedText(tr("Gap to ideal: %1").arg(runName_), Qt::ElideRight, width);
}

double GapWaterfallChart::Layout::yOf(double seconds) const
{
    return plot.bottom() - (seconds - axisMin) / (axisMax - axisMin) * plot.height();
}

GapWaterfallChart::Layout GapWaterfallChart::layout(const QRectF& area, const QFont& font) const
{
    const QFontMetricsF metrics(font);
    const double line = metrics.height();
    const QRectF inner = area.adjusted(kMargin, kMargin, -kMargin, -kMargin);
    Layout out;
    out.title = QRectF(inner.left(), inner.top(), inner.width(), line * 1.2);
    if (bars_.empty())
        return out;

    // Top to bottom: title, plot, bar names (two lines), the verdict in two
    // lines (one where the plot would otherwise get too little).
    const double namesHeight = line * 2;
    const double rest = inner.height() - out.title.height() - namesHeight;
    const int captionLines = rest - 2 * line >= 6 * line ? 2 : 1;
    out.captionLines = wrapped(caption_, font, inner.width(), captionLines);
    const double captionHeight = line * double(out.captionLines.size()) + line * 0.3;
    const double labelWidth = metrics.horizontalAdvance(QStringLiteral("00.00 s")) + kMargin;
    out.plot = QRectF(inner.left() + labelWidth, out.title.bottom(), inner.width() - labelWidth,
                      std::max(rest - captionHeight, line));
    // The title centred over the plot, not over the plot and its labels.
    out.title.setLeft(out.plot.left());
    out.names = QRectF(out.plot.left(), out.plot.bottom() + 2, out.plot.width(), namesHeight);
    out.caption = QRectF(inner.left(), out.names.bottom() + line * 0.3, inner.width(),
                         captionHeight - line * 0.3);

    double high = 0;  // the highest bar's top
    for (const Bar& bar : bars_)
        high = std::max(high, bar.top());
    // Pixels above the highest bar for its numbers: two lines where the
    // plot has room, one, or none.
    out.valueLines = out.plot.height() >= 4 * 2.2 * line ? 2 : out.plot.height() >= 3.3 * line ? 1 : 0;
    const double roomAbove = std::max(out.valueLines * line * 1.1, line * 0.3);
    // From 0 in every comparison, so that the bars' heights compare as
    // their seconds do: an axis from 0.45 s made a small gap look large.
    out.axisMin = 0;
    const double perSecond = std::max(out.plot.height() - roomAbove, 1.0) / std::max(high, 1e-3);
    out.axisMax = high + roomAbove / perSecond;
    constexpr double pixelsPerTick = 24;
    out.tickStep = ChartAxis::niceStep(out.axisMax - out.axisMin,
                                       std::max(2, int(out.plot.height() / (pixelsPerTick * fontScale_))));

    const double slot = out.plot.width() / double(bars_.size());
    for (std::size_t i = 0; i < bars_.size(); ++i) {
        const double left = out.plot.left() + slot * double(i) + slot * (1 - kBarFraction) / 2;
        const double top = out.yOf(bars_[i].top());
        const double bottom = out.yOf(std::max(bars_[i].bottom(), out.axisMin));
        // A part too small to see still shows as a line.
        out.bars.emplace_back(left, top, slot * kBarFraction, std::max(bottom - top, 1.0));
    }
    return out;
}

void GapWaterfallChart::paint(QPainter& painter, const QRectF& area, const QFont& font) const
{
    painter.fillRect(area, palette().color(QPalette::Base));
    painter.setRenderHint(QPainter::Antialiasing);
    const QColor text = palette().color(QPalette::Text);
    const Layout out = layout(area, font);

    QFont titleFont = font;
    titleFont.setBold(true);
    painter.setFont(titleFont);
    painter.setPen(text);
    painter.drawText(out.title, Qt::AlignHCenter | Qt::AlignTop, title(titleFont, out.title.width()));
    painter.setFont(font);
    if (bars_.empty()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        const QRectF below = area.adjusted(kMargin, out.title.bottom(), -kMargin, -kMargin);
        painter.drawText(below, Qt::AlignCenter | Qt::TextWordWrap, emptyText());
        return;
    }

    const int tickDecimals = decimalsFor(out.tickStep);
    paintAxis(painter, area, out, font, tickDecimals);
    paintBars(painter, area, out, font, tickDecimals + 1);

    // The verdict, under everything.
    painter.drawText(out.caption, Qt::AlignLeft | Qt::AlignTop,
                     out.captionLines.join(QLatin1Char('\n')));
}

void GapWaterfallChart::paintAxis(QPainter& painter, const QRectF& area, const Layout& out,
                                  const QFont& font, int tickDecimals) const
{
    const QColor text = palette().color(QPalette::Text);
    const QColor faint = palette().color(QPalette::PlaceholderText);
    // The y axis: a faint grid line and a label per tick.
    const QFontMetricsF metrics(font);
    for (double tick = std::ceil(out.axisMin / out.tickStep - 1e-9) * out.tickStep;
         tick <= out.axisMax; tick += out.tickStep) {
        const double y = out.yOf(tick);
        painter.setPen(QPen(faint, 0.5, Qt::DotLine));
        painter.drawLine(QPointF(out.plot.left(), y), QPointF(out.plot.right(), y));
        painter.setPen(text);
        painter.drawText(QRectF(area.left(), y - metrics.height() / 2,
                                out.plot.left() - area.left() - 4, metrics.height()),
                         Qt::AlignRight | Qt::AlignVCenter, secondsText(tick, tickDecimals));
    }
    painter.setPen(QPen(text, 1));
    painter.drawLine(out.plot.bottomLeft(), out.plot.bottomRight());
    painter.drawLine(out.plot.bottomLeft(), out.plot.topLeft());
}

QFont GapWaterfallChart::namesFont(const QFont& font, double slot) const
{
    // The names in a smaller font where their longest word would not fit its slot.
    const QFontMetricsF metrics(font);
    QFont namesFont = font;
    double longestWord = 1;
    for (const Bar& bar : bars_)
        for (const QString& word : bar.label.split(QLatin1Char(' ')))
            longestWord = std::max(longestWord, metrics.horizontalAdvance(word));
    // Never below the normal size (12 px), nor more than 15% below presenter
    // mode's (16 px of its 19): a word still too long is elided, and hovering
    // its bar names it.
    const double smallest = std::min(1.0, std::max(0.85, baseFont_.pointSizeF() / font.pointSizeF()));
    namesFont.setPointSizeF(font.pointSizeF() * std::clamp((slot - 4) / longestWord, smallest, 1.0));
    return namesFont;
}

QString GapWaterfallChart::valueText(const Bar& bar, int decimals, bool secondsFit,
                                     bool fullValues) const
{
    const QString plain = secondsText(bar.seconds, decimals);
    const QString seconds = (plain.startsWith(QLatin1Char('-')) ? QString() : QStringLiteral("+"))
        + plain;
    // Without a gap (N devices at or beyond N times faster) a share of it means
    // nothing: the seconds alone, where they fit (hovering a bar tells them too).
    // A part that saved time has no share of the time lost: "saved".
    const QString share = bar.seconds < 0 ? tr("saved") : percentText(bar.share);
    return bar.kind != Bar::Kind::part ? secondsText(bar.seconds, decimals)
        : !hasGapToSplit()             ? (secondsFit ? seconds : QString())
        : fullValues ? seconds + QLatin1Char('\n') + share
                     : share;
}

void GapWaterfallChart::paintBars(QPainter& painter, const QRectF& area, const Layout& out,
                                  const QFont& font, int decimals) const
{
    const QColor text = palette().color(QPalette::Text);
    const QColor faint = palette().color(QPalette::PlaceholderText);
    const QFontMetricsF metrics(font);
    const double slot = out.plot.width() / double(bars_.size());
    // Seconds and share where a slot has room for them, else the share alone.
    const bool secondsFit =
        metrics.horizontalAdvance(QStringLiteral("+") + secondsText(-8.88, decimals)) <= slot;
    const bool fullValues = out.valueLines == 2 && secondsFit;
    const QFont smallFont = namesFont(font, slot);
    for (std::size_t i = 0; i < bars_.size(); ++i) {
        const Bar& bar = bars_[i];
        const QRectF& rect = out.bars[i];
        const QRectF slotColumn(out.plot.left() + slot * double(i), area.top(), slot, area.height());
        const QColor fill = bar.kind == Bar::Kind::ideal      ? referenceLineColor()
                            : bar.kind == Bar::Kind::measured ? color_
                                                              : partColor(bar);
        painter.fillRect(rect, fill);
        // The step from this bar's end to the next one's start.
        if (i + 1 < bars_.size()) {
            painter.setPen(QPen(faint, 1, Qt::DashLine));
            const double y = out.yOf(bar.end);
            painter.drawLine(QPointF(rect.right(), y), QPointF(out.bars[i + 1].left(), y));
        }
        painter.setPen(text);
        if (out.valueLines > 0) {
            // Above a bar that rises, below one that falls.
            const QString value = valueText(bar, decimals, secondsFit, fullValues);
            const double height = metrics.height() * 2;
            if (bar.kind == Bar::Kind::part && bar.seconds < 0)
                painter.drawText(QRectF(slotColumn.left(), rect.bottom() + 2, slot, height),
                                 Qt::AlignHCenter | Qt::AlignTop, value);
            else
                painter.drawText(QRectF(slotColumn.left(), rect.top() - height - 2, slot, height),
                                 Qt::AlignHCenter | Qt::AlignBottom, value);
        }
        // The bar's name under the axis, wrapped to its slot.
        painter.setFont(smallFont);
        painter.drawText(QRectF(slotColumn.left(), out.names.top(), slot, out.names.height()),
                         Qt::AlignHCenter | Qt::AlignTop,
                         wrapped(bar.label, smallFont, slot - 2, 2).join(QLatin1Char('\n')));
        painter.setFont(font);
    }
}

void GapWaterfallChart::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    paint(painter, rect(), scaledFont(fontScale_));
}

bool GapWaterfallChart::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip && !bars_.empty()) {
        auto* help = static_cast<QHelpEvent*>(event);
        const Layout out = layout(rect(), scaledFont(fontScale_));
        // The verdict in full, where its caption is cut short.
        if (out.caption.contains(help->pos())) {
            QToolTip::showText(help->globalPos(), caption_, this);
            return true;
        }
        const double slot = out.plot.width() / double(bars_.size());
        const int i = int(std::floor((help->pos().x() - out.plot.left()) / slot));
        const QRectF barsAndNames(out.plot.topLeft(), out.names.bottomRight());
        if (i < 0 || i >= int(bars_.size()) || !barsAndNames.contains(help->pos())) {
            QToolTip::hideText();
            event->ignore();
            return true;
        }
        const Bar& bar = bars_[std::size_t(i)];
        const QString share = !hasGapToSplit() ? QString()
                              : bar.seconds < 0 ? tr(", saved (the shares are of the time lost)")
                                                : tr(", %1 of the time lost").arg(percentText(bar.share));
        // Three decimals: a part can be a few milliseconds per epoch.
        QString seconds = QString::number(bar.seconds, 'f', 3);
        seconds += QLatin1Char(' ');
        seconds += vocabulary::secondsPerEpochUnit();
        QString tip = bar.kind == Bar::Kind::part
            ? tr("<b>%1</b><br>%2%3<br>%4").arg(bar.name.toHtmlEscaped(), seconds, share,
                                               bar.advice.toHtmlEscaped())
            : tr("<b>%1</b><br>%2").arg(bar.name.toHtmlEscaped(), seconds);
        QToolTip::showText(help->globalPos(), tip, this);
        return true;
    }
    return QWidget::event(event);
}

QImage GapWaterfallChart::exportImage(QSize size, double pixelRatio) const
{
    QImage image(size * pixelRatio, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(pixelRatio);
    QPainter painter(&image);
    paint(painter, QRectF(QPointF(0, 0), QSizeF(size)), baseFont_);
    return image;
}

bool GapWaterfallChart::exportSvg(const QString& path, QSize size, const QString& title) const
{
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setTitle(title);
    generator.setSize(size);
    generator.setViewBox(QRect(QPoint(0, 0), size));
    QPainter painter;
    if (!painter.begin(&generator))
        return false;
    paint(painter, QRectF(QPointF(0, 0), QSizeF(size)), baseFont_);
    return painter.end();
}
