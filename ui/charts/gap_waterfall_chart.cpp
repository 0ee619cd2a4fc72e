#include "gap_waterfall_chart.h"

#include <QEvent>
#include <QFontMetricsF>
#include <QHelpEvent>
#include <QPainter>
#include <QPainterPath>
#include <QSvgGenerator>
#include <QToolTip>

#include <algorithm>
#include <cmath>

#include "chart_axis.h"
#include "engine_message.h"
#include "run_palette.h"

namespace {

constexpr double kMargin = 6;
// A bar's width as a fraction of its slot.
constexpr double kBarFraction = 0.62;
// Lines of text kept free above the highest bar and below the lowest
// floating one for their value labels.
constexpr double kLabelLines = 2.3;
// The part of the plot's height below the lowest floating bar, at least:
// the ideal and measured bars stay tall enough to read as totals even when
// the axis starts above 0 to make small parts visible.
constexpr double kMinRoomBelow = 0.3;

// A part's colour: warm when it costs time, green when it saves some.
QColor partColor(double seconds)
{
    return seconds >= 0 ? QColor(0xd6, 0x4f, 0x3c) : QColor(0x2e, 0x8b, 0x57);
}

QString secondsText(double seconds, int decimals)
{
    return GapWaterfallChart::tr("%1 s").arg(seconds, 0, 'f', decimals);
}

// Enough decimals for the tick step to show (0.05 s: 2).
int decimalsFor(double step)
{
    return std::clamp(int(std::ceil(-std::log10(step) - 1e-9)), 0, 4);
}

}  // namespace

GapWaterfallChart::GapWaterfallChart(QWidget* parent) : QWidget(parent)
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
    runName_ = runName;
    color_ = color.isValid() ? color : runColor(1);
    if (gap) {
        bars_.push_back({Bar::Kind::ideal, tr("ideal"),
                         tr("ideal: 1 device's sec/epoch / %1").arg(gap->devices), {}, 0,
                         gap->ideal, gap->ideal, 0});
        double reached = gap->ideal;
        for (const dp::GapPart& part : gap->parts) {
            bars_.push_back({Bar::Kind::part, QString::fromStdString(part.short_name),
                             QString::fromStdString(part.name), engineMessage(part.advice),
                             reached, reached + part.seconds, part.seconds, gap->share(part)});
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
    QFont font = this->font();
    font.setPointSizeF(font.pointSizeF() * scale);
    return font;
}

QString GapWaterfallChart::title() const
{
    return runName_.isEmpty() || bars_.empty() ? tr("Gap to the ideal speedup")
                                               : tr("Gap to the ideal speedup: %1").arg(runName_);
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
    if (bars_.empty())
        return out;

    // The floating region: every bar's end, and the totals' tops.
    double low = bars_.front().end, high = low;
    for (const Bar& bar : bars_) {
        low = std::min({low, bar.kind == Bar::Kind::part ? bar.bottom() : bar.end});
        high = std::max(high, bar.top());
    }
    const double spread = high - low > 0 ? high - low : std::max(high * 0.05, 1e-3);

    const double titleHeight = line * 1.3;
    const double captionHeight =
        metrics.boundingRect(QRectF(0, 0, inner.width(), 1e6), Qt::TextWordWrap, caption_).height()
        + line * 0.3;
    const double labelHeight = line * 2.2;  // the bar names, two lines at most
    const double labelWidth = metrics.horizontalAdvance(secondsText(high * 10, 2)) + kMargin;
    out.plot = QRectF(inner.left() + labelWidth, inner.top() + titleHeight, inner.width() - labelWidth,
                      inner.height() - titleHeight - labelHeight - captionHeight);

    // The axis starts low enough that the lowest floating bar keeps room for
    // its labels below it, and the totals show as bars, but above 0 when the
    // parts would otherwise be slivers of tall totals.
    const double dataHeight = std::max(out.plot.height() - kLabelLines * line, 1.0);
    const double roomBelow =
        std::clamp(kLabelLines * line / dataHeight, kMinRoomBelow, 0.8);
    double axisMin = std::max(0.0, low - spread * roomBelow / (1 - roomBelow));
    constexpr double pixelsPerTick = 36;
    const int ticks = std::max(2, int(out.plot.height() / (pixelsPerTick * fontScale_)));
    out.tickStep = ChartAxis::niceStep(high - axisMin, ticks);
    out.axisMin = std::floor(axisMin / out.tickStep) * out.tickStep;
    // The highest bar's labels fit above it.
    out.axisMax = high + (high - out.axisMin) * (kLabelLines * line / dataHeight);

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
    const QColor faint = palette().color(QPalette::PlaceholderText);
    const QFontMetricsF metrics(font);
    const double line = metrics.height();
    const QRectF inner = area.adjusted(kMargin, kMargin, -kMargin, -kMargin);

    QFont titleFont = font;
    titleFont.setBold(true);
    painter.setFont(titleFont);
    painter.setPen(text);
    painter.drawText(QRectF(inner.left(), inner.top(), inner.width(), line * 1.3),
                     Qt::AlignHCenter | Qt::AlignTop,
                     QFontMetricsF(titleFont).elidedText(title(), Qt::ElideMiddle, inner.width()));
    painter.setFont(font);
    if (bars_.empty()) {
        painter.setPen(faint);
        painter.drawText(inner.adjusted(0, line * 1.3, 0, 0), Qt::AlignCenter | Qt::TextWordWrap,
                         emptyText());
        return;
    }

    const Layout out = layout(area, font);
    const int decimals = decimalsFor(out.tickStep) + 1;

    // The y axis: ticks, labels and a faint grid.
    painter.setPen(faint);
    for (double tick = out.axisMin; tick <= out.axisMax + out.tickStep * 1e-9; tick += out.tickStep) {
        const double y = out.yOf(tick);
        painter.setPen(QPen(faint, 0.5, Qt::DotLine));
        painter.drawLine(QPointF(out.plot.left(), y), QPointF(out.plot.right(), y));
        painter.setPen(text);
        painter.drawText(QRectF(inner.left(), y - line / 2, out.plot.left() - inner.left() - 4, line),
                         Qt::AlignRight | Qt::AlignVCenter, secondsText(tick, decimalsFor(out.tickStep)));
    }
    painter.setPen(QPen(text, 1));
    painter.drawLine(out.plot.bottomLeft(), out.plot.bottomRight());
    painter.drawLine(out.plot.bottomLeft(), out.plot.topLeft());

    QFont small = font;
    small.setPointSizeF(font.pointSizeF() * 0.9);
    const QFontMetricsF smallMetrics(small);
    const double slot = out.plot.width() / double(bars_.size());
    for (std::size_t i = 0; i < bars_.size(); ++i) {
        const Bar& bar = bars_[i];
        const QRectF& rect = out.bars[i];
        const QColor fill = bar.kind == Bar::Kind::ideal      ? referenceLineColor()
                            : bar.kind == Bar::Kind::measured ? color_
                                                              : partColor(bar.seconds);
        painter.fillRect(rect, fill);
        // The step from this bar's end to the next one's start.
        if (i + 1 < bars_.size()) {
            painter.setPen(QPen(faint, 1, Qt::DashLine));
            const double y = out.yOf(bar.end);
            painter.drawLine(QPointF(rect.right(), y), QPointF(out.bars[i + 1].left(), y));
        }
        // Seconds and share of the gap: above a bar that rises, below one that falls.
        painter.setFont(small);
        painter.setPen(text);
        const QString value = bar.kind == Bar::Kind::part
            ? QStringLiteral("%1%2\n%3%")
                  .arg(bar.seconds >= 0 ? QStringLiteral("+") : QString())
                  .arg(secondsText(bar.seconds, decimals))
                  .arg(bar.share * 100, 0, 'f', 0)
            : secondsText(bar.seconds, decimals);
        const double valueHeight = smallMetrics.height() * 2;
        const QRectF slotRect(out.plot.left() + slot * double(i), 0, slot, valueHeight);
        if (bar.kind == Bar::Kind::part && bar.seconds < 0)
            painter.drawText(slotRect.translated(0, rect.bottom() + 2), Qt::AlignHCenter | Qt::AlignTop,
                             value);
        else
            painter.drawText(slotRect.translated(0, rect.top() - valueHeight - 2),
                             Qt::AlignHCenter | Qt::AlignBottom, value);
        // The bar's name under the axis, wrapped to its slot.
        painter.drawText(QRectF(out.plot.left() + slot * double(i), out.plot.bottom() + 3, slot,
                                smallMetrics.height() * 2.2),
                         Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap, bar.label);
        painter.setFont(font);
    }

    // The verdict, under everything.
    const double captionTop = out.plot.bottom() + line * 2.5;  // under the names, as layout() left room
    painter.setPen(text);
    painter.drawText(QRectF(inner.left(), captionTop, inner.width(), inner.bottom() - captionTop),
                     Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, caption_);
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
        const double slot = out.plot.width() / double(bars_.size());
        const int i = int(std::floor((help->pos().x() - out.plot.left()) / slot));
        if (i < 0 || i >= int(bars_.size()) || !out.plot.contains(help->pos())) {
            QToolTip::hideText();
            event->ignore();
            return true;
        }
        const Bar& bar = bars_[std::size_t(i)];
        QString tip = bar.kind == Bar::Kind::part
            ? tr("<b>%1</b><br>%2 s per epoch, %3% of the gap<br>%4")
                  .arg(bar.name.toHtmlEscaped())
                  .arg(bar.seconds, 0, 'f', 3)
                  .arg(bar.share * 100, 0, 'f', 0)
                  .arg(bar.advice.toHtmlEscaped())
            : tr("<b>%1</b><br>%2 s per epoch").arg(bar.name.toHtmlEscaped()).arg(bar.seconds, 0, 'f', 3);
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
    paint(painter, QRectF(QPointF(0, 0), QSizeF(size)), font());
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
    paint(painter, QRectF(QPointF(0, 0), QSizeF(size)), font());
    return painter.end();
}
